/** The product's realtime channels. */

/** The user's presence channel (spec: named after the user id). */
export const userChannelOf = (userId: number): string => `presence-user-${userId}`;

/** The account's private channel (every user of the account): teammates' status, the floor. */
export const accountChannelOf = (accountId: number): string => `private-account-${accountId}`;
