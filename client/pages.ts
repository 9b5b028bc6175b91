// Paging through a history list (/usage, /licenses) by spec 4.4's rule: a page shorter than the
// limit asked for is the last page.

/** Yields each page from `offset` on, and stops after the first short one. */
export async function* pagesOf<Page>(
  fetchPage: (limit: number, offset: number) => Promise<Page>,
  itemCount: (page: Page) => number,
  limit: number,
  offset = 0,
): AsyncGenerator<Page> {
  for (let at = offset; ; at += limit) {
    const page = await fetchPage(limit, at);
    const count = itemCount(page);
    if (count > 0) yield page;
    if (count < limit) return;
  }
}
