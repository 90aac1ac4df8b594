// The value types in this module's API (filters, blend modes, paths, layer states…) come
// from LaminaValues: importing this module imports them.
@_exported import LaminaValues
