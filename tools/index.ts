/** Built-in server tools (static barrel). */
import datetime from "./datetime.ts";

export const builtinTools = [datetime] as const;
