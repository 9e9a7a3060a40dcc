import fs from 'node:fs';

interface GhostscriptModule {
  FS: { writeFile(path: string, data: Uint8Array): void; readFile(path: string): Uint8Array };
  callMain(args: string[]): number;
}
type Factory = (options: Record<string, unknown>) => Promise<GhostscriptModule>;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const factory = require('@jspawn/ghostscript-wasm') as Factory;
let wasm: Buffer | undefined;

/** The one WebAssembly call needed (the project's TypeScript libs carry no WebAssembly types). */
const { WebAssembly: wa } = globalThis as unknown as {
  WebAssembly: {
    instantiate(bytes: Buffer, imports: object): Promise<{ instance: object }>;
  };
};

/**
 * Rasterises PDF or EPS files with Ghostscript (compiled to WebAssembly; a dev dependency), as a
 * print shop's RIP would: one run for all files, one PNG per file (each has one page).
 */
export async function rasterise(
  files: Buffer[],
  kind: 'pdf' | 'eps',
  dpi = 144,
): Promise<Buffer[]> {
  wasm ??= fs.readFileSync(require.resolve('@jspawn/ghostscript-wasm/gs.wasm'));
  const bytes = wasm;
  const gs = await factory({
    noInitialRun: true,
    print: () => undefined,
    printErr: () => undefined,
    instantiateWasm(imports: object, done: (instance: object) => void) {
      void wa.instantiate(bytes, imports).then((result) => done(result.instance));
      return {};
    },
  });
  const inputs = files.map((file, i) => {
    const name = `/in-${i}.${kind}`;
    gs.FS.writeFile(name, file);
    return name;
  });
  const args = ['-dSAFER', '-dBATCH', '-dNOPAUSE', '-sDEVICE=png16m', `-r${dpi}`];
  if (kind === 'eps') args.push('-dEPSCrop');
  const status = gs.callMain([...args, '-sOutputFile=/out-%d.png', ...inputs]);
  if (status !== 0) throw new Error(`ghostscript exited with ${status}`);
  return files.map((_, i) => Buffer.from(gs.FS.readFile(`/out-${i + 1}.png`)));
}
