/**
 * Fails when a dependency the service ships with (everything `npm ci --omit=dev` installs) is
 * under the GPL or AGPL: linkqr is MIT and runs as a network service, where the AGPL would bind
 * every deployment (ua-parser-js 2.x is AGPL, for one). LGPL (sharp's libvips) is fine: it is
 * linked, not copied. Reads package-lock.json, so it needs no network and no extra package.
 */
import fs from 'node:fs';
import path from 'node:path';

interface LockPackage {
  license?: string;
  dev?: boolean;
  devOptional?: boolean;
}

/** GPL or AGPL of any version; LGPL does not match (the letter before "GPL" is an L). */
const STRONG_COPYLEFT = /(^|[^L])GPL/i;

/** True when the SPDX expression leaves no way to use the package without (A)GPL terms. */
export function requiresCopyleft(expression: string): boolean {
  const alternatives = expression.replace(/[()]/g, ' ').split(/\s+OR\s+/i);
  return alternatives.every((alternative) =>
    alternative.split(/\s+AND\s+/i).some((term) => STRONG_COPYLEFT.test(term.trim())),
  );
}

export function findCopyleft(lock: { packages: Record<string, LockPackage> }): string[] {
  const offenders: string[] = [];
  for (const [location, pkg] of Object.entries(lock.packages)) {
    if (location === '' || pkg.dev || pkg.devOptional) continue;
    if (pkg.license && requiresCopyleft(pkg.license))
      offenders.push(`${location.replace(/^.*node_modules\//, '')}: ${pkg.license}`);
  }
  return offenders;
}

/**
 * Packages whose manifest names no licence, each read by hand: a new one fails the check until
 * someone reads its licence and adds it here.
 */
export const REVIEWED_LICENCES: Readonly<Record<string, string>> = {
  'png-js': 'MIT (its LICENSE file; the manifest has no license field)',
  'msgpackr-extract-stub': "MIT (msgpackr's own vendored stub)",
  'geoip-country':
    "code Apache-2.0-like; its data is MaxMind's GeoLite2 (GeoLite2 EULA, CC BY-SA 4.0 attribution): see README Licences",
};

const SPDX_ID = /^[A-Za-z0-9][A-Za-z0-9.+-]*$/;

/** True when `expression` is made of SPDX-shaped ids joined by AND, OR and WITH. */
export function isSpdxExpression(expression: string): boolean {
  const terms = expression
    .replace(/[()]/g, ' ')
    .split(/\s+(?:AND|OR|WITH)\s+/)
    .map((t) => t.trim());
  return terms.length > 0 && terms.every((t) => SPDX_ID.test(t));
}

type ManifestLicence = (name: string, location: string) => string | undefined;

/**
 * Production packages whose licence cannot be read as SPDX (none, `SEE LICENSE IN ...`, a
 * legacy `licenses` array the lock file leaves out): each must be read by hand.
 */
export function findUnknownLicences(
  lock: { packages: Record<string, LockPackage> },
  fromManifest: ManifestLicence,
): string[] {
  const unknown: string[] = [];
  for (const [location, pkg] of Object.entries(lock.packages)) {
    if (location === '' || pkg.dev || pkg.devOptional) continue;
    const name = location.replace(/^.*node_modules\//, '').replace(/^.*\//, '');
    if (REVIEWED_LICENCES[name]) continue;
    const licence = pkg.license ?? fromManifest(name, location);
    if (!licence || !isSpdxExpression(licence)) {
      unknown.push(`${location.replace(/^.*node_modules\//, '')}: ${licence ?? 'no licence'}`);
    }
  }
  return unknown;
}

/** The licence a legacy manifest gives (`license` object or `licenses` array), if installed. */
function manifestLicence(root: string): ManifestLicence {
  return (_name, location) => {
    try {
      const manifest = JSON.parse(
        fs.readFileSync(path.join(root, location, 'package.json'), 'utf8'),
      ) as { license?: unknown; licenses?: Array<{ type?: string }> };
      if (typeof manifest.license === 'string') return manifest.license;
      const types = (manifest.licenses ?? []).map((l) => l.type).filter(Boolean);
      return types.length ? types.join(' OR ') : undefined;
    } catch {
      return undefined;
    }
  };
}

if (require.main === module) {
  const lockFile = path.resolve(__dirname, '..', 'package-lock.json');
  const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8')) as {
    packages: Record<string, LockPackage>;
  };
  const offenders = findCopyleft(lock);
  if (offenders.length > 0) {
    process.stderr.write(
      `GPL/AGPL dependencies are not allowed in linkqr:\n  ${offenders.join('\n  ')}\n`,
    );
    process.exit(1);
  }
  const unknown = findUnknownLicences(lock, manifestLicence(path.resolve(__dirname, '..')));
  if (unknown.length > 0) {
    process.stderr.write(
      `Dependencies without an SPDX licence (read each, then add it to REVIEWED_LICENCES):\n  ${unknown.join('\n  ')}\n`,
    );
    process.exit(1);
  }
  const count = Object.values(lock.packages).filter((p) => !p.dev && !p.devOptional).length - 1;
  process.stdout.write(`licences: ${count} production packages, none GPL or AGPL\n`);
}
