import { availableParallelism } from 'node:os';
import QRCode from 'qrcode';
import sharp from 'sharp';
import type { QrStyle } from '../src/qr-codes/design/style';
import { renderThreads } from '../workers/qr-render/qr-render.worker';
import { renderQr, type RenderInput } from '../workers/qr-render/render-qr';
import { createRenderPool, type RenderPool } from '../workers/qr-render/render-pool';

/**
 * QR renders per second: the worker's pipeline (colours and a logo, with and without the decode
 * proof it runs on every render) against a bare `qrcode.toBuffer` PNG, measured in the same run.
 * Target from the issue: at least 60 renders/s per worker process, at least 2.5x the baseline.
 *
 * The lines are measured in interleaved rounds, so that load from other processes on a shared
 * machine falls on all of them alike instead of on whichever line ran at the wrong moment.
 */
const SIZE = 512;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 1000);
/** QR_CONCURRENCY values to measure the worker at: its default, and twice that. */
const CONCURRENCIES = [2, 4];

/** The styled code: a gradient, a frame with text, and (as every line here) a logo. */
const STYLED: QrStyle = {
  dots: 'rounded',
  corners: { frame: { shape: 'rounded' }, ball: { shape: 'circle' } },
  gradient: { type: 'linear', colors: ['#14287a', '#000000'], rotation: 45 },
  frame: { type: 'banner-bottom', text: 'SCAN ME' },
};

let counter = 0;
/** A different payload every time, as real jobs are: no cache can help. */
const nextPayload = () => `https://linkqr.test/s/B${(counter++).toString(36).padStart(7, '0')}`;

interface Line {
  label: string;
  run: () => Promise<unknown>;
  inFlight: number;
  done: number;
  seconds: number;
  cpuSeconds: number;
}

async function measure(line: Line, ms: number): Promise<void> {
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  const deadline = Date.now() + ms;
  await Promise.all(
    Array.from({ length: line.inFlight }, async () => {
      while (Date.now() < deadline) {
        await line.run();
        line.done += 1;
      }
    }),
  );
  line.seconds += Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  line.cpuSeconds += (cpu.user + cpu.system) / 1e6;
}

const perSecond = (line: Line) => line.done / line.seconds;

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
  const line = (label: string, run: () => Promise<unknown>, inFlight = 1): Line => ({
    label,
    run,
    inFlight,
    done: 0,
    seconds: 0,
    cpuSeconds: 0,
  });

  const baseline = line('baseline: qrcode.toBuffer PNG (one event loop)', () =>
    QRCode.toBuffer(nextPayload(), { width: SIZE }),
  );
  const styled = line('styled (gradient, frame, logo), one at a time, with proof', () =>
    renderQr({ ...input(true), style: STYLED }),
  );
  const lines = [
    baseline,
    line('pipeline, one at a time, no decode proof', () => renderQr(input(false))),
    line('pipeline, one at a time, with decode proof', () => renderQr(input(true))),
    styled,
  ];
  const pools: RenderPool[] = [];
  const worker: Array<{ concurrency: number; noProof: Line; proof: Line }> = [];
  for (const concurrency of CONCURRENCIES) {
    const [threads, perThread] = renderThreads(concurrency);
    const pool = createRenderPool(threads, perThread);
    pools.push(pool);
    const label = `worker, QR_CONCURRENCY=${concurrency} (${threads} threads)`;
    const noProof = line(`${label}, no proof`, () => pool.render(input(false)), concurrency);
    const proof = line(`${label}, with proof *`, () => pool.render(input(true)), concurrency);
    worker.push({ concurrency, noProof, proof });
    lines.push(noProof, proof);
  }

  try {
    // Warm-up: JIT, sharp's caches, thread start.
    for (const l of lines) for (let i = 0; i < 20; i += 1) await l.run();
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const l of lines) await measure(l, ROUND_MS);
    }
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }

  console.log(
    `${SIZE} px, colours and a logo; ${availableParallelism()} cores; ${ROUNDS} interleaved rounds of ${ROUND_MS} ms per line`,
  );
  for (const l of lines) {
    console.log(
      `${l.label.padEnd(52)} ${perSecond(l).toFixed(1).padStart(7)} renders/s ${((1000 * l.seconds) / l.done).toFixed(2).padStart(6)} ms/render  ${(l.cpuSeconds / l.seconds).toFixed(2)} cores`,
    );
  }
  console.log('* what the worker runs: every render is decoded before it is marked ready');
  console.log('(cores: CPU this process got; below the thread count, other load took the rest)');

  const ratio = (l: Line) => `${(perSecond(l) / perSecond(baseline)).toFixed(2)}x`;
  console.log('\nratios against the baseline (without proof / with proof):');
  console.log(`  one at a time:        ${ratio(lines[1] as Line)} / ${ratio(lines[2] as Line)}`);
  const plainMs = (lines[2] as Line).seconds / (lines[2] as Line).done;
  const styledMs = styled.seconds / styled.done;
  const cost = styledMs / plainMs;
  console.log(
    `  styled vs plain (both with logo and proof): ${(styledMs * 1000).toFixed(2)} / ${(plainMs * 1000).toFixed(2)} ms = ${cost.toFixed(2)}x the cost; target <= 3x: ${cost <= 3 ? 'met' : 'NOT met'}`,
  );
  for (const w of worker) {
    const rate = perSecond(w.proof);
    const meets = rate >= 60 && rate / perSecond(baseline) >= 2.5;
    console.log(
      `  QR_CONCURRENCY=${w.concurrency}:     ${ratio(w.noProof)} / ${ratio(w.proof)}  target (>= 60/s and >= 2.5x, with proof): ${meets ? 'met' : 'NOT met'}`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
