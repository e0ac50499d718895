/**
 * Writes docs/openapi.json: the API's OpenAPI 3.1 document as the server serves it at
 * `/api/docs/openapi.json`, made from the routes' own schemas (`src/http/api-docs.ts`) of an
 * application with every route mounted (`startDocumentedApp`: embedded mode with the sandbox,
 * Twilio's webhooks, the realtime events API and presence webhooks), on an in-memory database,
 * without listening. Formatted with the repository's Prettier settings, so the file is final;
 * two runs write the same bytes (the document depends on the routes only). The API document's
 * test (`src/http/api-docs.test.ts`) fails when the file is not the document as made.
 *
 *   npm run api-docs -w @leadline/server
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { startDocumentedApp } from '../src/test-support/documented-app';

// Always the embedded database: the document does not depend on it.
delete process.env.DATABASE_URL;
const t = await startDocumentedApp();
const document = t.app.swagger();
await t.close();
const target = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
const text = await format(JSON.stringify(document, null, 2), {
  ...(await resolveConfig(target)),
  filepath: target,
});
writeFileSync(target, text);
console.log(`wrote docs/openapi.json (${Object.keys(document.paths ?? {}).length} paths)`);
