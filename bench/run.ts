// `npm run bench -- <name>`: runs one benchmark (or all) and prints its report.
import { stealMeter } from './machine.ts';
const benches: Record<string, () => Promise<string>> = {
  http: async () => (await import('./http.ts')).benchHttp(),
  engine: async () => (await import('./engine.ts')).benchEngine(),
  catalog: async () => (await import('./catalog.ts')).benchCatalog(),
  download: async () => (await import('./download.ts')).benchDownload(),
  search: async () => (await import('./search.ts')).benchSearch(),
  'search-relevance': async () => (await import('./search-relevance.ts')).benchSearchRelevance(),
  tempo: async () => (await import('./tempo.ts')).benchTempo(),
  edits: async () => (await import('./edits.ts')).benchEdits(),
  nodes: async () => (await import('./nodes.ts')).benchNodes(),
  'edits-all': async () => (await import('./edits.ts')).benchEditsAll(),
};

async function main() {
  const names = process.argv.slice(2);
  const chosen = names.length ? names : Object.keys(benches);
  for (const name of chosen) {
    if (!benches[name]) throw new Error(`unknown benchmark "${name}"; available: ${Object.keys(benches).join(', ')}`);
  }
  for (const name of chosen) {
    console.log(`\n=== bench: ${name} ===`);
    const steal = stealMeter();
    console.log(await benches[name]());
    const stolen = steal();
    if (stolen) console.log(`(during this bench: ${stolen})`);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
