// Nothing to do in the background: the content script works alone.
