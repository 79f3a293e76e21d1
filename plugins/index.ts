/** Built-in plugins (static barrel). Plugins named by the spec arrive with their issues. */
import autoBetaRouter from "./auto-beta-router/index.ts";
import autoRouter from "./auto-router/index.ts";
import contextCompression from "./context-compression/index.ts";
import fileParser from "./file-parser/index.ts";
import fusion from "./fusion/index.ts";
import jevRouter from "./jev-router/index.ts";
import paretoRouter from "./pareto-router/index.ts";
import responseHealing from "./response-healing/index.ts";
import switchyardRouter from "./switchyard-router/index.ts";
import web from "./web/index.ts";
import webFetch from "./web-fetch/index.ts";
import moderation from "./moderation/index.ts";
import alignment from "./alignment/index.ts";

export const builtinPlugins = [
  autoRouter,
  autoBetaRouter,
  paretoRouter,
  jevRouter,
  switchyardRouter,
  web,
  webFetch,
  fusion,
  contextCompression,
  fileParser,
  responseHealing,
  moderation,
  alignment,
] as const;
