/**
 * `npm run seed -- --links N [--user ID]`: a large account to measure with (`npm run bench --
 * storage`). Without --user it creates one and prints its API key. Uses MONGODB_URI, or the
 * database of the running `npm start`.
 */
import { parseArgs } from 'node:util';
import { seedLinks } from '../src/cli/seed';
import '../src/app';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/shared/infra/database';
import { createLogger } from '../src/shared/infra/logger';
import { createUser } from '../src/users/users.service';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { links: { type: 'string', default: '1000' }, user: { type: 'string' } },
  });
  const count = Number(values.links);
  if (!Number.isSafeInteger(count) || count < 1)
    throw new Error('--links must be a positive integer');
  const config = loadConfig(process.env);
  const database = await openDatabase(
    config,
    createLogger('warn', 'linkqr-seed'),
    'shared',
    'skip',
  );
  try {
    let userId = Number(values.user);
    let apiKey: string | undefined;
    if (!values.user) {
      const stamp = Date.now().toString(36);
      const made = await createUser({
        email: `seed-${stamp}@example.com`,
        username: `seed${stamp}`,
      });
      userId = made.user.id;
      apiKey = made.apiKey;
    }
    const started = Date.now();
    const ids = await seedLinks(userId, count, (done) => {
      if (done % 10_000 === 0 || done === count) process.stderr.write(`  ${done} links\n`);
    });
    console.log(
      JSON.stringify({
        userId,
        apiKey,
        links: count,
        ...ids,
        seconds: (Date.now() - started) / 1000,
      }),
    );
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  console.error((err as Error).message);
  process.exit(1);
});
