/** Built-in plugins (static barrel). Plugins named by the spec arrive with their issues. */
export const builtinPlugins = [] as const;
