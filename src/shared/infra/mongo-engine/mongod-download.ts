import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';

/**
 * The version downloaded unless MONGOMS_VERSION says otherwise. Pinned here rather than left to
 * the library's default, which moves with its releases: data written by one major version is not
 * always readable by a later one without stepping through the versions in between.
 */
export const downloadedMongodVersion = '8.2.6';

/**
 * The mongod that mongodb-memory-server-core downloads once and caches (~/.cache/mongodb-binaries
 * unless its MONGOMS_* variables say otherwise). Loaded lazily: only a start without MONGODB_URI
 * and without a local mongod needs it.
 */
async function mongodbMemoryServer() {
  const [core, url] = await Promise.all([
    import('mongodb-memory-server-core'),
    import('mongodb-memory-server-core/lib/util/MongoBinaryDownloadUrl.js'),
  ]);
  const version = process.env.MONGOMS_VERSION ?? downloadedMongodVersion;
  const options = await core.DryMongoBinary.generateOptions({ version });
  return {
    core,
    options,
    downloadUrl: () => new url.MongoBinaryDownloadUrl(options).getDownloadUrl(),
  };
}

/** Why mongodb-memory-server-core has no mongod build for this machine, or undefined. */
export async function unsupportedPlatform(): Promise<string | undefined> {
  try {
    await (await mongodbMemoryServer()).downloadUrl();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

const proxyVariables = [
  'https_proxy',
  'HTTPS_PROXY',
  'http_proxy',
  'HTTP_PROXY',
  'npm_config_proxy',
  'npm_config_https-proxy',
];

/**
 * One HEAD request, bounded by `timeoutMs`: on a machine without internet access the download must
 * be refused at once, not after mongodb-memory-server's three attempts with a 60 s idle timeout each.
 */
export function probeDownloadHost(url: string, timeoutMs: number): Promise<void> {
  const target = new URL(url);
  const client = target.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const request = client.request(target, { method: 'HEAD' }, (response) => {
      response.resume();
      clearTimeout(timer);
      const status = response.statusCode ?? 0;
      // MongoDB's host answers 403 for a build that does not exist.
      if (status === 403 || status === 404 || status >= 500) {
        reject(new Error(`${target.host} answered HTTP ${status} for ${url}`));
      } else resolve();
    });
    const timer = setTimeout(
      () => request.destroy(new Error(`${target.host} did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    request.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot reach ${target.host} (${err.message})`));
    });
    request.end();
  });
}

/**
 * mongodb-memory-server-core verifies the download's TLS certificate only when
 * npm_config_strict_ssl is 'true', which npm does not export; an executable fetched without a
 * verified certificate could be anyone's, so verification is on unless the user turned it off.
 */
async function withVerifiedTls<T>(run: () => Promise<T>): Promise<T> {
  const before = process.env.npm_config_strict_ssl;
  if (before === undefined) process.env.npm_config_strict_ssl = 'true';
  try {
    return await run();
  } finally {
    if (before === undefined) delete process.env.npm_config_strict_ssl;
  }
}

/** The cached mongod, or one downloaded now (mongodb-memory-server prints the progress). */
export async function downloadMongod(logger: Logger, probeTimeoutMs = 10_000): Promise<string> {
  const { core, options, downloadUrl } = await mongodbMemoryServer();
  const cached = await core.DryMongoBinary.locateBinary(options);
  if (cached) return cached;
  const url = await downloadUrl();
  // Through a proxy the HEAD request would not say what the download will meet: skip it.
  if (!proxyVariables.some((name) => process.env[name]))
    await probeDownloadHost(url, probeTimeoutMs);
  logger.info(
    { version: options.version, url, downloadDir: options.downloadDir },
    `downloading mongod ${options.version} once into ${options.downloadDir}; later starts use this copy`,
  );
  return withVerifiedTls(() => core.MongoBinary.download({ ...options, checkMD5: true }));
}
