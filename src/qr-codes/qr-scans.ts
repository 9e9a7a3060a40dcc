// Placeholder until the shared visits module lands on main; replaced by its getClickCounts/getStatistics.
export async function scanCounts(ids: number[]): Promise<Map<number, number>> {
  return new Map(ids.map((id) => [id, 0]));
}

export async function scanStatistics(_id: number) {
  return {
    clicks: 0,
    uniqueClicks: 0,
    topCountries: {},
    topReferrers: {},
    topBrowsers: {},
    topOs: {},
    socialCount: { facebook: 0, twitter: 0, linkedin: 0 },
  };
}
