// Nothing: the options page's calls are what is checked.
