import { invalidTensorError } from './tensor-errors.js';

/** A protobufjs `Long`, as proto loaders hand out 64-bit integers when configured to. */
export interface LongLike {
  /** Low 32 bits (as a signed or unsigned 32-bit number). */
  low: number;
  /** High 32 bits (as a signed or unsigned 32-bit number). */
  high: number;
  /** True for uint64 values. */
  unsigned?: boolean;
}

/** A 64-bit integer in any form a proto loader may produce: number, decimal string, bigint or Long. */
export type Int64Like = number | string | bigint | LongLike;

const DECIMAL_INTEGER = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** The exact integer `value` stands for; throws INVALID_ARGUMENT for non-integers. */
export function int64ToBigInt(value: Int64Like, tensorName?: string): bigint {
  switch (typeof value) {
    case 'bigint':
      return value;
    case 'number':
      if (!Number.isInteger(value)) throw invalidTensorError(`${value} is not an integer`, tensorName);
      return BigInt(value);
    case 'string':
      if (!DECIMAL_INTEGER.test(value)) throw invalidTensorError(`'${value}' is not an integer`, tensorName);
      return BigInt(value);
    default: {
      const bits = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
      return value.unsigned === true ? bits : BigInt.asIntN(64, bits);
    }
  }
}

/** `value` as a signed 64-bit integer; throws INVALID_ARGUMENT when it is out of range. */
export function toInt64(value: Int64Like, tensorName?: string): bigint {
  const result = int64ToBigInt(value, tensorName);
  if (result < INT64_MIN || result > INT64_MAX) {
    throw invalidTensorError(`${result} is out of INT64 range`, tensorName);
  }
  return result;
}

/** `value` as an unsigned 64-bit integer; throws INVALID_ARGUMENT when it is out of range. */
export function toUint64(value: Int64Like, tensorName?: string): bigint {
  const result = int64ToBigInt(value, tensorName);
  if (result < 0n || result > UINT64_MAX) {
    throw invalidTensorError(`${result} is out of UINT64 range`, tensorName);
  }
  return result;
}
