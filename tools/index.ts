/** Built-in server tools (static barrel). */
import datetime from "./datetime.ts";
import searchModels from "./search-models.ts";
import toolSearch from "./tool-search.ts";
import webFetch from "./web-fetch/index.ts";
import webSearch from "./web-search/index.ts";

export const builtinTools = [datetime, searchModels, toolSearch, webSearch, webFetch] as const;
