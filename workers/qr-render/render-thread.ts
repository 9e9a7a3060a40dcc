import { parentPort } from 'node:worker_threads';
import { renderQr, type RenderInput } from './render-qr';
import type { VariantInput } from './render-variant';

type VariantModule = typeof import('./render-variant');
let variants: VariantModule | undefined;
/**
 * Loaded on the first variant: PDF, EPS and the raster proof of another size pull in pdfkit and
 * more, which a thread that only renders codes should not wait for when it starts.
 */
function variantModule(): VariantModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  variants ??= require('./render-variant') as VariantModule;
  return variants;
}

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

function work(request: RenderRequest): Promise<RenderReply> {
  const { id } = request;
  if (request.kind === 'variant') {
    return variantModule()
      .renderVariant(request.input)
      .then((bytes) => ({ id, ok: true, kind: 'variant', bytes }));
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
  warm
    .then(() => work(request))
    .then(
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
