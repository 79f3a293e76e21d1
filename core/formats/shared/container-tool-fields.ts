/**
 * Responses item fields of the container tools: `service:bash` → `command, stdout, stderr, exitCode`;
 * `service:shell` → `action: {commands, timeout_ms, max_output_length}, output`; `service:files` → `operation,
 * file_id, filename, result` (a JSON string); `service:apply_patch` → `operation: {type, path, diff?}`. Each also
 * carries `container_id` (the id `GET /containers/{id}/files` takes). What the call asked for comes from its
 * arguments, so a failed call's item still says what it tried.
 */
type Fields = Record<string, unknown>;

const defined = (fields: Fields): Fields => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));

const isObject = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);

function bashFields(args: Fields, result: Fields): Fields {
  const asked = typeof args.command === "string" ? args.command : Array.isArray(args.commands) ? args.commands.join("\n") : undefined;
  return defined({
    command: typeof result.command === "string" ? result.command : asked,
    stdout: result.stdout,
    stderr: result.stderr,
    exitCode: result.exitCode,
    container_id: result.container_id,
  });
}

function shellFields(args: Fields, result: Fields): Fields {
  const action = defined({ commands: Array.isArray(args.commands) ? args.commands : [], timeout_ms: args.timeout_ms, max_output_length: args.max_output_length });
  return defined({ action, output: result.output, container_id: result.container_id });
}

function filesFields(args: Fields, result: Fields): Fields {
  return defined({
    operation: args.operation,
    file_id: result.file_id ?? args.file_id,
    filename: result.filename ?? args.filename,
    result: result.result === undefined ? undefined : JSON.stringify(result.result),
    note: result.note,
    container_id: result.container_id,
  });
}

function applyPatchFields(args: Fields, result: Fields): Fields {
  // The per-file form shows its operation as asked; a whole patch shows each file it touched.
  const operations = Array.isArray(result.operations) ? result.operations : undefined;
  const operation = isObject(args.operation) ? args.operation : operations?.length === 1 ? operations[0] : undefined;
  return defined({
    operation,
    operations: isObject(args.operation) ? undefined : operations,
    output: result.output,
    container_id: result.container_id,
  });
}

export const CONTAINER_TOOL_PRESENTERS: Record<string, (args: Fields, result: Fields) => Fields> = {
  "service:bash": bashFields,
  "service:shell": shellFields,
  "service:files": filesFields,
  "service:apply_patch": applyPatchFields,
};
