// A fresh database per test file on the test run's PostgreSQL server (see test/run.ts).
import crypto from 'node:crypto';
import { connectSql } from '../../db/connect.ts';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export function adminUrl(): string {
  const url = process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!url) throw new Error('run the tests with `npm test` (it starts PostgreSQL) or set DATABASE_URL');
  return url;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = 'test_' + crypto.randomBytes(6).toString('hex');
  const admin = connectSql(adminUrl(), 1);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl());
  url.pathname = '/' + name;
  return {
    url: url.toString(),
    async drop() {
      const conn = connectSql(adminUrl(), 1);
      await conn.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await conn.end();
    },
  };
}
