// A mistake the load reports with this file's name.
export const = 42;
