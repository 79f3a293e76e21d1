/** A ReadableStream over an already opened (and checked) file, so the bytes served are those of the file checked. */
import type { FileHandle } from "node:fs/promises";

const CHUNK_BYTES = 64 * 1024;

/** Streams `handle` from its start and closes it at the end, on error, or when the client goes away. */
export function fileStream(handle: FileHandle): ReadableStream<Uint8Array> {
  let position = 0;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close().catch(() => undefined);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const buffer = new Uint8Array(CHUNK_BYTES);
        const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
        if (bytesRead === 0) {
          await close();
          controller.close();
          return;
        }
        position += bytesRead;
        controller.enqueue(buffer.subarray(0, bytesRead));
      } catch (error) {
        await close();
        controller.error(error);
      }
    },
    cancel: close,
  });
}
