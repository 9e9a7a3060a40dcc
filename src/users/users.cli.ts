import Joi from 'joi';
import { parseFlags, positiveInt, required, UsageError } from '../cli/args';
import type { CliCommand } from '../cli/command';
import { PLAN_NAME_PATTERN } from '../plans/plans.config';
import { dateTimeInput } from '../shared/http/date-input';
import { EMAIL, PASSWORD, USERNAME } from './users.schemas';
import { DEFAULT_KEY_ID } from '../keys/callers';
import { MAX_GRACE_SECONDS } from '../keys/keys.schemas';
import { rotateKey } from '../keys/keys.service';
import { createUser, setAdmin } from './users.service';

const userInput = Joi.object({
  email: EMAIL.required(),
  username: USERNAME.required(),
  plan: Joi.string().pattern(PLAN_NAME_PATTERN),
  password: PASSWORD,
  expires: dateTimeInput,
  admin: Joi.boolean(),
});

export const userCreate: CliCommand = {
  name: 'user:create',
  usage: 'user:create --email E --username U [--plan P] [--password W] [--expires DATE] [--admin]',
  async run(argv) {
    const flags = parseFlags(argv, ['email', 'username', 'plan', 'password', 'expires'], ['admin']);
    required(flags, 'email');
    required(flags, 'username');
    const { error, value } = userInput.validate(flags);
    if (error) throw new UsageError(error.message.replace(/"/g, ''));
    const { user, apiKey } = await createUser(value as Parameters<typeof createUser>[0]);
    return { id: user.id, username: user.username, admin: user.admin, apiKey };
  },
};

export const userAdmin: CliCommand = {
  name: 'user:admin',
  usage: 'user:admin --user ID --on|--off',
  async run(argv, context) {
    const flags = parseFlags(argv, ['user'], ['on', 'off']);
    const userId = positiveInt(flags, 'user');
    if ((flags.on === 'true') === (flags.off === 'true')) {
      throw new UsageError('exactly one of --on or --off is required');
    }
    if (!context) throw new Error('user:admin needs the API caches to invalidate');
    const user = await setAdmin(userId, flags.on === 'true', context.apiKeys);
    return { id: user.id, username: user.username, admin: user.admin };
  },
};

export const keyRotate: CliCommand = {
  name: 'key:rotate',
  usage: 'key:rotate --user ID [--key ID] [--grace SECONDS]',
  async run(argv, context) {
    const flags = parseFlags(argv, ['user', 'key', 'grace']);
    const userId = positiveInt(flags, 'user');
    const keyId = flags.key === undefined ? DEFAULT_KEY_ID : positiveInt(flags, 'key');
    const grace = flags.grace === undefined ? 0 : Number(flags.grace);
    if (!Number.isSafeInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS) {
      throw new UsageError(
        `--grace must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}`,
      );
    }
    if (!context) throw new Error('key:rotate needs the API caches to invalidate');
    const issued = await rotateKey({ id: userId }, keyId, grace, context.apiKeys);
    return {
      id: userId,
      key: issued.id,
      apiKey: issued.key,
      previousUntil: issued.previousUntil?.toISOString() ?? null,
    };
  },
};
