/**
 * The request targets every instance accepts (`request-target.ts`): origin-form paths only. The
 * refused ones are each a way a URL resolved from the raw target (`new URL(target, base)`) left
 * the base's host or path, as the security review found them against Node's parser and WHATWG URL.
 */
import { describe, expect, it } from 'vitest';
import { requestTargetProblem } from './request-target';

describe('requestTargetProblem', () => {
  it.each([
    '/',
    '/api/v1/teams',
    '/api/v1/users/paginated?page=2&status=online&search=a..b',
    '/api/v1/callusers/12',
    '/signal?token=abc.def.ghi',
    '/assets/index-BfX1.js',
    '/sounds/incoming.mp3',
    '/api/v1/users/paginated?search=%2e%2e%5c',
  ])('accepts %s', (target) => {
    expect(requestTargetProblem(target)).toBeNull();
  });

  it.each([
    ['', 'an empty target'],
    ['http://169.254.169.254/api/v1/teams', 'not a path'],
    ['HTTP://127.0.0.1:9/api/v1/callusers/1', 'not a path'],
    ['*', 'not a path'],
    ['127.0.0.1:9', 'not a path'],
    ['//169.254.169.254/latest/meta-data/', 'a network-path reference'],
    ['/api/v1/callusers/..\\..\\..\\latest\\meta-data\\', 'a backslash'],
    ['/api/v1/callusers/1?x=\\', 'a backslash'],
    ['/api/v1/callusers/%5C..%5Cx', 'a backslash'],
    ['/api/v1/callusers/%2e%2e/%2E%2E/x', 'a percent-encoded dot'],
    ['/api/v1/callusers/.%2e/x', 'a percent-encoded dot'],
    ['/api/v1/calls/../../../v1/kv/x', 'a dot segment'],
    ['/api/v1/calls/./1/hold', 'a dot segment'],
    ['/api/v1/calls/1/..', 'a dot segment'],
  ])('refuses %j: %s', (target, problem) => {
    expect(requestTargetProblem(target)).toMatch(new RegExp(`^${problem}`));
  });
});
