/** Where a leader tells the other instances to reach it (`media_leader.url`). */
import { describe, expect, it } from 'vitest';
import { lanAddresses, loadConfig } from '../config';
import { reachableUrlOf } from './start-instance';

describe('reachableUrlOf', () => {
  it('is INSTANCE_URL when set', () => {
    const config = loadConfig({ HOST: '0.0.0.0', INSTANCE_URL: 'https://media-1.internal:8443' });
    expect(reachableUrlOf(config, 'http://localhost:3000')).toBe('https://media-1.internal:8443');
  });

  it('is the listening URL on a named host', () => {
    const config = loadConfig({ HOST: '10.0.0.5' });
    expect(reachableUrlOf(config, 'http://10.0.0.5:3000')).toBe('http://10.0.0.5:3000');
  });

  it.each(['0.0.0.0', '::'])(
    'names the first LAN address on the wildcard host %s, with the port and scheme',
    (host) => {
      const config = loadConfig({ HOST: host });
      const lan = lanAddresses()[0]!;
      expect(reachableUrlOf(config, 'https://localhost:3443')).toBe(`https://${lan}:3443`);
    },
  );
});
