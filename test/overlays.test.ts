import { expect } from 'chai';
import { UsageError } from '../src/cli/args';
import { commands } from '../src/cli/commands';
import { overlayAdd } from '../src/overlays/overlays.cli';
import { AppError } from '../src/shared/errors/app-error';
import { startTestApp, type TestApp } from './support/app-harness';
import { client, DATE_TIME, type ListBody } from './support/http';
import { createTestUser } from './support/users';
import { rejection } from './support/rejection';

interface OverlayItem {
  id: number;
  type: string;
  name: string;
  date: string;
}
/** The settings of an overlay created with only a type and a name. */
const OVERLAY_DEFAULTS = {
  message: '',
  button: '',
  link: '',
  color: '#ffffff',
  background: '#1f2937',
  position: 'bottom-right',
  responses: 0,
};
type OverlayList = ListBody<'cta', OverlayItem>;

const failure = (argv: string[]) => rejection(overlayAdd.run(argv));

describe('CTA overlays', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  describe('CLI overlay:add', () => {
    it('is listed among the CLI commands', () => {
      expect(commands).to.include(overlayAdd);
    });

    it('creates an overlay and returns it as the API shows it', async () => {
      const { user } = await createTestUser();
      const record = await overlayAdd.run([
        '--user',
        String(user.id),
        '--type',
        'contact',
        '--name',
        ' Contact form ',
      ]);
      expect(record).to.deep.equal({
        id: record.id,
        type: 'contact',
        name: 'Contact form',
        date: record.date,
        ...OVERLAY_DEFAULTS,
      });
      expect(record.id).to.be.a('number');
      expect(record.date).to.match(DATE_TIME);
      expect(JSON.stringify(record)).not.to.include('\n');
    });

    const usage: Array<[string, string[], string]> = [
      ['--user is missing', ['--type', 'message', '--name', 'N'], '--user is required'],
      ['--type is missing', ['--user', '1', '--name', 'N'], '--type is required'],
      ['--name is missing', ['--user', '1', '--type', 'message'], '--name is required'],
      [
        '--user is not a number',
        ['--user', 'x', '--type', 'message', '--name', 'N'],
        '--user must be a positive integer',
      ],
      [
        '--type is unknown',
        ['--user', '1', '--type', 'banner', '--name', 'N'],
        'type must be one of [message, contact]',
      ],
      [
        '--name is too long',
        ['--user', '1', '--type', 'message', '--name', 'n'.repeat(101)],
        'name length must be less than or equal to 100 characters long',
      ],
      [
        '--name is blank',
        ['--user', '1', '--type', 'message', '--name', '  '],
        'name is not allowed to be empty',
      ],
    ];
    for (const [label, argv, message] of usage) {
      it(`refuses with a usage error when ${label}`, async () => {
        const err = await failure(argv);
        expect(err).to.be.instanceOf(UsageError);
        expect(err.message).to.equal(message);
      });
    }

    it('refuses an unknown flag', async () => {
      const err = await failure([
        '--user',
        '1',
        '--type',
        'message',
        '--name',
        'N',
        '--color',
        'red',
      ]);
      expect(err).to.be.instanceOf(UsageError);
      expect(err.message).to.match(/Unknown option '--color'/);
    });

    it('answers not found for a user that does not exist, creating nothing', async () => {
      const err = await failure(['--user', '999999999', '--type', 'message', '--name', 'N']);
      expect(err).to.be.instanceOf(AppError);
      expect((err as AppError).status).to.equal(404);
      expect(err.message).to.equal('No user with id 999999999');
    });
  });

  describe('GET /api/overlay', () => {
    it('lists only the caller overlays, newest first, under the key cta', async () => {
      const { user, apiKey } = await createTestUser();
      const stranger = await createTestUser();
      await overlayAdd.run([
        '--user',
        String(stranger.user.id),
        '--type',
        'message',
        '--name',
        'Theirs',
      ]);
      const first = await overlayAdd.run([
        '--user',
        String(user.id),
        '--type',
        'message',
        '--name',
        'Hello',
      ]);
      const second = await overlayAdd.run([
        '--user',
        String(user.id),
        '--type',
        'contact',
        '--name',
        'Reach us',
      ]);
      const res = await client(app.url, apiKey).get<OverlayList>('/api/overlay');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          cta: [second, first],
        },
      });
      expect(res.body.data.cta[0]).to.deep.equal({
        id: second.id,
        type: 'contact',
        name: 'Reach us',
        date: second.date,
        ...OVERLAY_DEFAULTS,
      });
    });

    it('pages with limit and page, and answers 400 for a bad page', async () => {
      const { user, apiKey } = await createTestUser();
      const api = client(app.url, apiKey);
      for (const name of ['a', 'b', 'c']) {
        await overlayAdd.run(['--user', String(user.id), '--type', 'message', '--name', name]);
      }
      const page = await api.get<OverlayList>('/api/overlay?limit=1&page=3');
      expect(page.body.data).to.include({
        result: 3,
        perpage: 1,
        currentpage: 3,
        nextpage: 3,
        maxpage: 3,
      });
      expect(page.body.data.cta.map((o) => o.name)).to.deep.equal(['a']);
      const bad = await api.get('/api/overlay?page=x');
      expect(bad.status).to.equal(400);
      expect(bad.body).to.deep.include({
        error: 1,
        message: 'Invalid query: page must be a number',
      });
    });

    it('answers an empty list to a user without overlays', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).get<OverlayList>('/api/overlay');
      expect(res.body).to.deep.equal({
        error: '0',
        data: { result: 0, perpage: 15, currentpage: 1, nextpage: 1, maxpage: 1, cta: [] },
      });
    });
  });
});
