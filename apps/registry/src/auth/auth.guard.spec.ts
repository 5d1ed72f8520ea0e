import 'reflect-metadata';
import { type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { isModelgateError } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { PublicRoute, RequireRole } from './access.decorator.js';
import { AuthGuard } from './auth.guard.js';
import { type Principal } from './principal.js';
import { type TokensService } from './tokens.service.js';

class Routes {
  @RequireRole('admin')
  mutate(): void {}

  @RequireRole('viewer')
  read(): void {}

  @PublicRoute()
  probe(): void {}

  undecorated(): void {}
}

const TOKENS: Record<string, Principal> = {
  'admin-secret': { tokenName: 'ops', role: 'admin' },
  'viewer-secret': { tokenName: 'dashboard', role: 'viewer' },
};

const tokens = {
  authenticate: (token: string) => Promise.resolve(TOKENS[token]),
} as unknown as TokensService;
const guard = new AuthGuard(new Reflector(), tokens);

function context(
  handler: keyof Routes,
  authorization?: string,
): { ctx: ExecutionContext; request: { principal?: Principal } } {
  const request: { headers: Record<string, string>; principal?: Principal } = {
    headers: authorization === undefined ? {} : { authorization },
  };
  const ctx = {
    getHandler: () => Object.getOwnPropertyDescriptor(Routes.prototype, handler)?.value as unknown,
    getClass: () => Routes,
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
  return { ctx, request };
}

async function outcome(handler: keyof Routes, authorization?: string): Promise<string> {
  try {
    return String(await guard.canActivate(context(handler, authorization).ctx));
  } catch (error) {
    if (isModelgateError(error)) return error.code;
    throw error;
  }
}

describe('AuthGuard', () => {
  it('lets an admin token through everywhere and records who it is', async () => {
    const { ctx, request } = context('mutate', 'Bearer admin-secret');
    expect(await guard.canActivate(ctx)).toBe(true);
    expect(request.principal).toEqual({ tokenName: 'ops', role: 'admin' });
    expect(await outcome('read', 'Bearer admin-secret')).toBe('true');
  });

  it('answers a viewer 403 on admin routes and lets it read', async () => {
    expect(await outcome('mutate', 'Bearer viewer-secret')).toBe('PERMISSION_DENIED');
    expect(await outcome('read', 'Bearer viewer-secret')).toBe('true');
  });

  it('answers 401 without a token or with an unknown one', async () => {
    expect(await outcome('read')).toBe('UNAUTHENTICATED');
    expect(await outcome('read', 'Bearer guessed')).toBe('UNAUTHENTICATED');
  });

  it('opens public routes and refuses routes without an access rule (fails closed)', async () => {
    expect(await outcome('probe')).toBe('true');
    expect(await outcome('undecorated', 'Bearer admin-secret')).toBe('INTERNAL');
  });
});
