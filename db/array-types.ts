// PostgreSQL type oids of the array parameters our batched statements take, given to sql.array
// explicitly: inferring them from the values fails for some first calls.
export const BYTEA_ARRAY = 1001;
export const TEXT_ARRAY = 1009;
export const INT4_ARRAY = 1007;
export const INT8_ARRAY = 1016;
export const FLOAT4_ARRAY = 1021;
export const FLOAT8_ARRAY = 1022;
export const TIMESTAMPTZ_ARRAY = 1185;
