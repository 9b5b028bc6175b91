// Which files of a folder are masters, and in which format: by extension (case-insensitive). The
// content is then read as that format and refused with the reason when it is not one.
import path from 'node:path';
import { MASTER_FORMATS, type MasterFormat } from '../engine/masters/master-shape.ts';

export function masterFormatOf(file: string): MasterFormat | undefined {
  const extension = path.extname(file).slice(1).toLowerCase();
  return (MASTER_FORMATS as readonly string[]).includes(extension) ? (extension as MasterFormat) : undefined;
}
