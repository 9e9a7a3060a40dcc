import { parseFlags, positiveInt, required, UsageError } from '../cli/args';
import type { CliCommand } from '../cli/command';
import { presentOverlay } from './overlays.presenter';
import { overlayCreateSchema, type OverlayCreate } from './overlays.schemas';
import { createOverlay } from './overlays.service';

export const overlayAdd: CliCommand = {
  name: 'overlay:add',
  usage: 'overlay:add --user ID --type message|contact --name N',
  async run(argv) {
    const flags = parseFlags(argv, ['user', 'type', 'name']);
    const userId = positiveInt(flags, 'user');
    const input = { type: required(flags, 'type'), name: required(flags, 'name') };
    const { error, value } = overlayCreateSchema.validate(input);
    if (error) throw new UsageError(error.message.replace(/"/g, ''));
    return presentOverlay(await createOverlay(userId, value as OverlayCreate));
  },
};
