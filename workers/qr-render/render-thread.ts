import { parentPort } from 'node:worker_threads';
import { renderQr, type RenderInput } from './render-qr';
import { renderVariant, type VariantInput } from './render-variant';

/** A render of a code's version, or a variant (another size, PDF, EPS) of a ready one. */
export type RenderWork =
  { kind: 'render'; input: RenderInput } | { kind: 'variant'; input: VariantInput };

export type RenderRequest = RenderWork & { id: number };

export type RenderReply =
  | {
      id: number;
      ok: true;
      kind: 'render';
      png: Uint8Array;
      svg: Uint8Array;
      logo?: Uint8Array | undefined;
    }
  | { id: number; ok: true; kind: 'variant'; bytes: Uint8Array }
  | { id: number; ok: false; name: string; message: string };

function work(request: RenderRequest): Promise<RenderReply> {
  const { id } = request;
  if (request.kind === 'variant') {
    return renderVariant(request.input).then((bytes) => ({ id, ok: true, kind: 'variant', bytes }));
  }
  return renderQr(request.input).then(({ png, svg, logo }) => ({
    id,
    ok: true,
    kind: 'render',
    png,
    svg,
    logo,
  }));
}

/** One render pool thread: renders its requests off the event loop that talks to Redis. */
parentPort?.on('message', (request: RenderRequest) => {
  work(request).then(
    (reply) => parentPort?.postMessage(reply),
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
