import { parentPort } from 'node:worker_threads';
import { renderQr, type RenderInput } from './render-qr';

export interface RenderRequest {
  id: number;
  input: RenderInput;
}

export type RenderReply =
  | { id: number; ok: true; png: Uint8Array; svg: Uint8Array; logo?: Uint8Array | undefined }
  | { id: number; ok: false; name: string; message: string };

/** One render pool thread: renders its requests off the event loop that talks to Redis. */
parentPort?.on('message', (request: RenderRequest) => {
  renderQr(request.input).then(
    ({ png, svg, logo }) => {
      const reply: RenderReply = { id: request.id, ok: true, png, svg, logo };
      parentPort?.postMessage(reply);
    },
    (err: unknown) => {
      const error = err instanceof Error ? err : new Error(String(err));
      const reply: RenderReply = {
        id: request.id,
        ok: false,
        name: error.name,
        message: error.message,
      };
      parentPort?.postMessage(reply);
    },
  );
});
