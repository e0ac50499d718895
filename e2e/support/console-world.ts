/**
 * What most console specs start with: the product, Chromium whose microphone plays a tone, and
 * an HTTP client for the API, started before the spec file's tests and stopped after them.
 */
import { request, type APIRequestContext, type APIResponse, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { launchChromium, toneWav } from './browser';
import { startProduct, type Product } from './product';

/** The demo account's API key (lead intake). */
export const DEMO_API_KEY = 'demo-api-key';

/** A lead to post (`POST /api/v1/leads`). */
export interface LeadFields {
  readonly fname: string;
  readonly lname?: string;
  readonly phone: string;
}

/** The spec file's product, browser and API client (read them inside tests). */
export interface ConsoleWorld {
  readonly product: Product;
  readonly browser: Browser;
  readonly http: APIRequestContext;
  /** Posts a lead with the demo API key; resolves with the answer once it was created (201). */
  postLead(lead: LeadFields): Promise<APIResponse>;
}

/** Registers the spec file's `beforeAll`/`afterAll`; the microphone plays `micHz`. */
export function consoleWorld(micHz: number): ConsoleWorld {
  let product: Product | undefined;
  let browser: Browser | undefined;
  let http: APIRequestContext | undefined;
  beforeAll(async () => {
    product = await startProduct();
    browser = await launchChromium(await toneWav(micHz));
    http = await request.newContext();
  });
  afterAll(async () => {
    await http?.dispose();
    await browser?.close();
    await product?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('consoleWorld is read before its beforeAll ran');
    return value;
  };
  const world: ConsoleWorld = {
    get product() {
      return started(product);
    },
    get browser() {
      return started(browser);
    },
    get http() {
      return started(http);
    },
    async postLead({ fname, lname = 'Lead', phone }) {
      const posted = await world.http.post(`${world.product.url}/api/v1/leads`, {
        headers: { authorization: `Bearer ${DEMO_API_KEY}` },
        data: { fname, lname, phone_number: phone },
      });
      expect(posted.status()).toBe(201);
      return posted;
    },
  };
  return world;
}
