import { parseFlags, positiveInt, required, UsageError } from '../cli/args';
import type { CliCommand } from '../cli/command';
import { presentSplash } from './splash.presenter';
import { splashCreateSchema, type SplashCreate } from './splash.schemas';
import { createSplashPage } from './splash.service';

export const splashAdd: CliCommand = {
  name: 'splash:add',
  usage: 'splash:add --user ID --name N',
  async run(argv) {
    const flags = parseFlags(argv, ['user', 'name']);
    const userId = positiveInt(flags, 'user');
    const { error, value } = splashCreateSchema.validate({ name: required(flags, 'name') });
    if (error) throw new UsageError(error.message.replace(/"/g, ''));
    return presentSplash(await createSplashPage(userId, value as SplashCreate));
  },
};
