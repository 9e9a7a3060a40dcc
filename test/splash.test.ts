import { expect } from 'chai';
import { UsageError } from '../src/cli/args';
import { commands } from '../src/cli/commands';
import { AppError } from '../src/shared/errors/app-error';
import { splashAdd } from '../src/splash/splash.cli';
import { startTestApp, type TestApp } from './support/app-harness';
import { client, DATE_TIME, type ListBody } from './support/http';
import { createTestUser } from './support/users';
import { rejection } from './support/rejection';

interface SplashItem {
  id: number;
  name: string;
  date: string;
}
type SplashList = ListBody<'splash', SplashItem>;
/** The content of a splash page created with only a name. */
const SPLASH_DEFAULTS = { title: '', message: '', image: '', link: '', button: '', counter: 5 };

const failure = (argv: string[]) => rejection(splashAdd.run(argv));

describe('custom splash pages', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  describe('CLI splash:add', () => {
    it('is listed among the CLI commands', () => {
      expect(commands).to.include(splashAdd);
    });

    it('creates a splash page and returns it as the API shows it', async () => {
      const { user } = await createTestUser();
      const record = await splashAdd.run(['--user', String(user.id), '--name', 'Launch week']);
      expect(record).to.deep.equal({
        id: record.id,
        name: 'Launch week',
        date: record.date,
        ...SPLASH_DEFAULTS,
      });
      expect(record.id).to.be.a('number');
      expect(record.date).to.match(DATE_TIME);
    });

    const usage: Array<[string, string[], string | RegExp]> = [
      ['--user is missing', ['--name', 'N'], '--user is required'],
      ['--name is missing', ['--user', '1'], '--name is required'],
      ['--user is zero', ['--user', '0', '--name', 'N'], '--user must be a positive integer'],
      [
        '--name holds a control character',
        ['--user', '1', '--name', 'a\u0007b'],
        'name must not contain control characters',
      ],
      [
        'a flag is unknown',
        ['--user', '1', '--name', 'N', '--type', 'x'],
        /Unknown option '--type'/,
      ],
      ['a flag has no value', ['--user', '1', '--name'], /argument missing/],
    ];
    for (const [label, argv, message] of usage) {
      it(`refuses with a usage error when ${label}`, async () => {
        const err = await failure(argv);
        expect(err).to.be.instanceOf(UsageError);
        if (typeof message === 'string') expect(err.message).to.equal(message);
        else expect(err.message).to.match(message);
      });
    }

    it('answers not found for a user that does not exist', async () => {
      const err = await failure(['--user', '999999999', '--name', 'N']);
      expect(err).to.be.instanceOf(AppError);
      expect((err as AppError).status).to.equal(404);
      expect(err.message).to.equal('No user with id 999999999');
    });
  });

  describe('GET /api/splash', () => {
    it('lists only the caller splash pages, newest first, under the key splash', async () => {
      const { user, apiKey } = await createTestUser();
      const stranger = await createTestUser();
      await splashAdd.run(['--user', String(stranger.user.id), '--name', 'Theirs']);
      const first = await splashAdd.run(['--user', String(user.id), '--name', 'One']);
      const second = await splashAdd.run(['--user', String(user.id), '--name', 'Two']);
      const res = await client(app.url, apiKey).get<SplashList>('/api/splash');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          splash: [
            { id: second.id, name: 'Two', date: second.date, ...SPLASH_DEFAULTS },
            { id: first.id, name: 'One', date: first.date, ...SPLASH_DEFAULTS },
          ],
        },
      });
    });

    it('pages with limit and page, and answers 400 for a bad limit', async () => {
      const { user, apiKey } = await createTestUser();
      const api = client(app.url, apiKey);
      for (const name of ['a', 'b', 'c'])
        await splashAdd.run(['--user', String(user.id), '--name', name]);
      const page = await api.get<SplashList>('/api/splash?limit=2');
      expect(page.body.data).to.include({
        result: 3,
        perpage: 2,
        currentpage: 1,
        nextpage: 2,
        maxpage: 2,
      });
      expect(page.body.data.splash.map((s) => s.name)).to.deep.equal(['c', 'b']);
      const bad = await api.get('/api/splash?limit=1000');
      expect(bad.status).to.equal(400);
      expect(bad.body).to.deep.include({
        error: 1,
        message: 'Invalid query: limit must be less than or equal to 100',
      });
    });

    it('answers 401 without a key', async () => {
      const res = await client(app.url).get('/api/splash');
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.include({
        error: 1,
        message: 'Missing API key: send Authorization: Bearer <API_KEY>',
      });
    });
  });
});
