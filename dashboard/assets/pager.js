// Previous/next paging of a list read with limit and offset (a short page is the last one).
export function createPager(pageSize, load) {
  let offset = 0;
  const previous = document.getElementById('previous');
  const next = document.getElementById('next');
  const label = document.getElementById('page-label');
  async function go(to) {
    offset = Math.max(0, to);
    const total = await load(offset, pageSize);
    const pages = Math.max(1, Math.ceil(total / pageSize));
    label.textContent = `Page ${Math.floor(offset / pageSize) + 1} of ${pages}`;
    previous.disabled = offset === 0;
    next.disabled = offset + pageSize >= total;
  }
  previous.addEventListener('click', () => go(offset - pageSize));
  next.addEventListener('click', () => go(offset + pageSize));
  return { reload: () => go(0) };
}
