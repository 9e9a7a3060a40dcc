import { availableParallelism } from 'node:os';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { renderQr, type RenderInput } from '../workers/qr-render/render-qr';
import { createRenderPool } from '../workers/qr-render/render-pool';

/**
 * QR renders per second: the worker's pipeline (colours and a logo, with and without the decode
 * proof it runs on every render) against a bare `qrcode.toBuffer` PNG, measured in the same run.
 * Target from the issue: at least 60 renders/s per worker process, at least 2.5x the baseline.
 */
const SIZE = 512;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const threads = Math.max(
  1,
  Math.min(Number(process.env.QR_CONCURRENCY ?? 2), availableParallelism()),
);

let counter = 0;
/** A different payload every time, as real jobs are: no cache can help. */
const nextPayload = () => `https://linkqr.test/s/B${(counter++).toString(36).padStart(7, '0')}`;

async function rate(label: string, run: () => Promise<unknown>, inFlight = 1): Promise<number> {
  for (let i = 0; i < 20; i += 1) await run(); // warm-up: JIT, sharp's caches, thread start
  let done = 0;
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  const deadline = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < deadline) {
        await run();
        done += 1;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  // CPU this process got (all its threads): below the thread count, other load took the rest.
  const cores = (cpu.user + cpu.system) / 1e6 / seconds;
  const perSecond = done / seconds;
  console.log(
    `${label.padEnd(50)} ${perSecond.toFixed(1).padStart(7)} renders/s ${((1000 * seconds) / done).toFixed(2).padStart(6)} ms/render  ${cores.toFixed(2)} cores`,
  );
  return perSecond;
}

async function main(): Promise<void> {
  const logo = await sharp({
    create: { width: 240, height: 240, channels: 3, background: { r: 220, g: 30, b: 30 } },
  })
    .png()
    .toBuffer();
  const input = (verify: boolean): RenderInput => ({
    payload: nextPayload(),
    size: SIZE,
    foreground: { r: 20, g: 40, b: 120 },
    background: { r: 250, g: 245, b: 230 },
    logo,
    verify,
  });

  console.log(`${SIZE} px, colours and a logo; ${SECONDS} s per line; ${threads} render threads`);
  const baseline = await rate('baseline: qrcode.toBuffer PNG (one event loop)', () =>
    QRCode.toBuffer(nextPayload(), { width: SIZE }),
  );
  const oneNoProof = await rate('pipeline, one thread, no decode proof', () =>
    renderQr(input(false)),
  );
  const oneProof = await rate('pipeline, one thread, with decode proof', () =>
    renderQr(input(true)),
  );

  const pool = createRenderPool(threads);
  let poolNoProof: number;
  let poolProof: number;
  try {
    poolNoProof = await rate(
      `worker pool (${threads} threads), no decode proof`,
      () => pool.render(input(false)),
      threads * 2,
    );
    poolProof = await rate(
      `worker pool (${threads} threads), with decode proof *`,
      () => pool.render(input(true)),
      threads * 2,
    );
  } finally {
    await pool.close();
  }

  console.log('* what the worker runs');
  const ratio = (n: number) => `${(n / baseline).toFixed(2)}x`;
  console.log('\nratios against the baseline:');
  console.log(`  one thread:  ${ratio(oneNoProof)} without proof, ${ratio(oneProof)} with proof`);
  console.log(`  worker pool: ${ratio(poolNoProof)} without proof, ${ratio(poolProof)} with proof`);
  const meets = poolProof >= 60 && poolProof / baseline >= 2.5;
  console.log(
    `target (>= 60 renders/s per worker process, >= 2.5x baseline), as the worker runs: ${meets ? 'met' : 'NOT met'}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
