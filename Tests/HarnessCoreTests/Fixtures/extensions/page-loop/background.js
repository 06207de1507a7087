// Nothing: the pages talk among themselves.
