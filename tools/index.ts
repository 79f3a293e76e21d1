/** Built-in server tools (static barrel). */
import applyPatch from "./apply-patch/index.ts";
import bash from "./bash/index.ts";
import datetime from "./datetime.ts";
import files from "./files/index.ts";
import imageGeneration from "./image-generation/index.ts";
import searchModels from "./search-models.ts";
import shell from "./shell/index.ts";
import toolSearch from "./tool-search.ts";
import webFetch from "./web-fetch/index.ts";
import webSearch from "./web-search/index.ts";

export const builtinTools = [datetime, searchModels, toolSearch, webSearch, webFetch, imageGeneration, bash, shell, files, applyPatch] as const;
