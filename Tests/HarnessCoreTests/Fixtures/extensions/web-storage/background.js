// A background with nothing to do: the content script is what is looked at.
