// Nothing: the popup does the work.
