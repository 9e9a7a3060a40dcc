import { parentPort } from 'node:worker_threads';
import { renderQr, type RenderInput } from './render-qr';

export interface RenderRequest {
  id: number;
  input: RenderInput;
}

export type RenderReply =
  | { id: number; ok: true; png: Uint8Array; svg: Uint8Array; logo?: Uint8Array | undefined }
  | { id: number; ok: false; name: string; message: string };

/**
 * A render of the usual kind (a link, 512 px, plain, its proof decoded), made as the thread
 * starts: the first codes after a start no longer wait for V8 to compile the encoder, the
 * rasteriser and the decoder (issue 28: the first batch ran at two thirds of the later ones).
 */
const WARM_UP: RenderInput = {
  payload: 'https://linkqr.invalid/warm-up',
  size: 512,
  foreground: { r: 0, g: 0, b: 0 },
  background: { r: 255, g: 255, b: 255 },
  verify: true,
};
const warm = renderQr(WARM_UP).then(
  () => undefined,
  () => undefined,
);

/** One render pool thread: renders its requests off the event loop that talks to Redis. */
parentPort?.on('message', (request: RenderRequest) => {
  warm
    .then(() => renderQr(request.input))
    .then(
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
