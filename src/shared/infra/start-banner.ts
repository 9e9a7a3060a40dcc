import { styleText } from 'node:util';
import type { LogFormat } from './logger';

/** What a newcomer needs once `npm start` is up: where to go, where the data is, what to run. */
export interface StartFacts {
  publicUrl: string;
  /** Where the data lives, in words. */
  data: string;
  /** RUNTIME_DIR/secrets, when the start generated or read secrets there. */
  secrets: string | undefined;
}

export const FIRST_USER_COMMAND =
  "npm run -s cli -- user:create --email you@example.com --username you --password 'a long passphrase'";

/** The database as the banner names it: a URI loses its user and password. */
export function describeData(
  where: { kind: 'uri'; uri: string } | { kind: 'mongod'; dataDir: string } | { kind: 'memory' },
): string {
  if (where.kind === 'mongod') return `${where.dataDir} (a local mongod, kept between runs)`;
  if (where.kind === 'memory')
    return 'in memory only: lost when linkqr stops (README "Where the data lives")';
  try {
    const url = new URL(where.uri);
    url.username = '';
    url.password = '';
    return `the MongoDB at ${url.toString()}`;
  } catch {
    return 'the MongoDB of MONGODB_URI';
  }
}

export function bannerFields(facts: StartFacts) {
  return {
    url: facts.publicUrl,
    dashboard: `${facts.publicUrl}/app`,
    docs: `${facts.publicUrl}/docs`,
    data: facts.data,
    ...(facts.secrets ? { secrets: facts.secrets } : {}),
    next: FIRST_USER_COMMAND,
  };
}

/** The banner a terminal shows: a few aligned lines, the title and the command in bold. */
export function bannerText(facts: StartFacts, color: boolean): string {
  const bold = (text: string) => (color ? styleText('bold', text) : text);
  const fields = bannerFields(facts);
  const rows: Array<[string, string]> = [
    ['Service', fields.url],
    ['Dashboard', fields.dashboard],
    ['API docs', fields.docs],
    ['Data', fields.data],
    ...(fields.secrets ? ([['Secrets', fields.secrets]] as Array<[string, string]>) : []),
  ];
  return [
    '',
    `  ${bold('linkqr is running')}`,
    '',
    ...rows.map(([label, value]) => `  ${label.padEnd(11)}${value}`),
    '',
    '  Next, in a second terminal, create your first user (it prints the API key):',
    `    ${bold(FIRST_USER_COMMAND)}`,
    `  then sign in at ${fields.dashboard}. Ctrl-C stops linkqr.`,
    '',
    '',
  ].join('\n');
}

/** Written whole on a terminal; a JSON line (`linkqr is ready`) anywhere else. */
export function announceStart(
  facts: StartFacts,
  format: LogFormat,
  log: (fields: Record<string, unknown>, msg: string) => void,
  write: (text: string) => void = (text) => process.stdout.write(text),
): void {
  if (format === 'pretty') write(bannerText(facts, process.stdout.isTTY === true));
  else log(bannerFields(facts), 'linkqr is ready');
}
