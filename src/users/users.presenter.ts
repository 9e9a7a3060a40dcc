import { presentAccount } from '../account/account.presenter';
import type { Plan } from '../plans/plans.config';
import { planOf } from '../plans/plans.service';
import type { UserRecord } from './user.model';

/**
 * A user in GemPixel's admin answers: the account fields, the plan's id and the admin flag.
 * GemPixel also returns `apikey`; linkqr stores keys hashed, so a key is shown once, at creation.
 */
export function presentUser(user: UserRecord, plans: readonly Plan[]) {
  return {
    ...presentAccount(user),
    planid: planOf(plans, user)?.id ?? null,
    admin: user.admin ?? false,
  };
}
