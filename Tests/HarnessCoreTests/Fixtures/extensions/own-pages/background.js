// Nothing: the pages are what is checked.
