import { formatDateTime } from '../shared/format/dates';
import type { SplashPageRecord } from './splash-page.model';

/** A custom splash page as the spec lists it (4.8). */
export function presentSplash(page: SplashPageRecord) {
  return { id: page.id, name: page.name, date: formatDateTime(page.createdAt) };
}
