import { importCommand } from '../imports/imports.cli';
import { overlayAdd } from '../overlays/overlays.cli';
import { splashAdd } from '../splash/splash.cli';
import { twoFactorOff } from '../two-factor/two-factor.cli';
import { keyRotate, userAdmin, userCreate } from '../users/users.cli';
import type { CliCommand } from './command';
import { dbMigrate } from './migrate.cli';

/** Every operator command; a resource adds its own by listing it here. */
export const commands: readonly CliCommand[] = [
  dbMigrate,
  userCreate,
  userAdmin,
  keyRotate,
  twoFactorOff,
  overlayAdd,
  splashAdd,
  importCommand,
];
