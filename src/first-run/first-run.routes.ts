import { Router } from 'express';
import type { AppDeps } from '../deps';
import { endpoint } from '../shared/http/endpoint';
import { ownHostCheck } from '../shared/http/own-host';
import { pageResponse, sendPage, VISITOR_ERRORS } from '../shared/http/pages';
import { User } from '../users/user.model';
import { firstRunBody } from './first-run.page';

const page = endpoint({
  tag: 'Visitors',
  summary: "The service's front page",
  description:
    "On the service's own host: what linkqr is, links to the dashboard and the API documentation, and, while no user exists, the command that creates the first one. A branded domain's root redirects instead.",
  responses: { 200: pageResponse('The page') },
  errors: VISITOR_ERRORS,
});

/** `GET /` on the service's own host (a branded domain's root is answered before this). */
export function firstRunRouter(deps: AppDeps): Router {
  const { config } = deps;
  const isOwnHost = ownHostCheck(config.publicUrl);
  const appUrl = config.appUrl === config.publicUrl ? undefined : config.appUrl;
  // Once someone has an account, the page stops offering to create one; until then every view
  // asks, so a user just created by the CLI (another process) is seen at once.
  let userSeen = false;
  const router = Router();
  router.get('/', page, async (req, res, next) => {
    if (!isOwnHost(req)) return next();
    userSeen ||= (await User.exists({})) !== null;
    sendPage(
      res,
      200,
      'linkqr',
      firstRunBody({ publicUrl: config.publicUrl, appUrl, noUserYet: !userSeen }),
    );
  });
  return router;
}
