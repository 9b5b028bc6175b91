// The dashboard's pages and assets: plain HTML, CSS and ES modules from dashboard/, read once at
// start (a few KB; they change only with the code, which restarts the server). Each page file is
// its main content; dashboard/shell.html is the document around it (head, skip link, header),
// with the page's title and its module. Pages need a session (else a redirect to the sign-in
// page); assets (and /favicon.ico) hold no account data and need none.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reply } from '../http/reply.ts';
import { ApiError } from '../http/api-error.ts';
import type { Access, DashboardRoute } from './dashboard-route.ts';

const DASHBOARD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dashboard');
const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };
/** The site's icon: the pages name it, and a browser asks for /favicon.ico of anything else it opens here (JSON, the API reference). */
const FAVICON = 'favicon.svg';

/** URL path → page (dashboard/pages/NAME.html, its module assets/NAME.js), its title, who may see it. */
const PAGES: [string, string, string, Access][] = [
  ['/dashboard/login', 'login', 'Sign in', 'public'],
  ['/dashboard', 'overview', 'Overview', 'signed-in'],
  ['/dashboard/keys', 'keys', 'API keys', 'signed-in'],
  ['/dashboard/usage', 'usage', 'Usage', 'signed-in'],
  ['/dashboard/licenses', 'licenses', 'Licenses', 'signed-in'],
  ['/dashboard/certificate', 'certificate', 'License certificate', 'signed-in'],
  ['/dashboard/catalog', 'catalog', 'Catalog', 'signed-in'],
  ['/dashboard/password', 'password', 'Password', 'password-change'],
];

/** A page: the shell with its title, its module and its main content. */
function pageHtml(shell: string, name: string, title: string): string {
  const main = fs.readFileSync(path.join(DASHBOARD_DIR, 'pages', `${name}.html`), 'utf8').replace(/\n$/, '');
  const fields: Record<string, string> = { title, script: `${name}.js`, main };
  return shell.replace(/\{\{(title|script|main)\}\}/g, (_, field: string) => fields[field]);
}

function fileReply(body: Buffer, type: string): Reply {
  return { status: 200, headers: { 'Content-Type': type }, body };
}

export function pageRoutes(): DashboardRoute[] {
  const shell = fs.readFileSync(path.join(DASHBOARD_DIR, 'shell.html'), 'utf8');
  const pages: DashboardRoute[] = PAGES.map(([url, name, title, access]) => {
    const reply = fileReply(Buffer.from(pageHtml(shell, name, title)), 'text/html; charset=utf-8');
    return { method: 'get', path: url, access, page: true, handle: async () => reply };
  });
  const assets = new Map<string, Reply>();
  for (const file of fs.readdirSync(path.join(DASHBOARD_DIR, 'assets'))) {
    const type = ASSET_TYPES[path.extname(file)];
    if (type) assets.set(file, fileReply(fs.readFileSync(path.join(DASHBOARD_DIR, 'assets', file)), type));
  }
  const asset: DashboardRoute = {
    method: 'get', path: '/dashboard/assets/:file', paramCount: 1, access: 'public',
    async handle(request) {
      const found = assets.get(request.params[0]);
      if (!found) throw new ApiError(404, 'not_found', `no dashboard asset "${request.params[0]}"`);
      return found;
    },
  };
  const favicon: DashboardRoute = { method: 'get', path: '/favicon.ico', access: 'public', handle: async () => assets.get(FAVICON)! };
  return [...pages, asset, favicon];
}
