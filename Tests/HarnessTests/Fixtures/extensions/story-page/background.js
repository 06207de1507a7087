// Nothing to do: the content script builds the page on its own.
