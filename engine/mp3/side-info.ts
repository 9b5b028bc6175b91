// The parts of a layer III frame's side info that splicing frames needs: where its main data
// begins (the bit reservoir pointer) and whether each granule uses normal long blocks.
import type { FrameHeader } from './frame-header.ts';

export interface SideInfo {
  /** Bytes of this frame's main data that sit before its header, in earlier frames. */
  mainDataBegin: number;
  /** Per granule: true when every channel uses a normal long block (no window switching). */
  longBlocks: boolean[];
  /** Bytes of main data this frame uses (sum of part2_3_length, rounded up). */
  mainDataBytes: number;
}

class BitReader {
  private bit = 0;
  constructor(private bytes: Uint8Array, private offset: number) {}
  read(count: number): number {
    let value = 0;
    for (let i = 0; i < count; i++) {
      const byte = this.bytes[this.offset + (this.bit >> 3)];
      value = (value << 1) | ((byte >> (7 - (this.bit & 7))) & 1);
      this.bit++;
    }
    return value;
  }
  skip(count: number) {
    this.bit += count;
  }
}

export function readSideInfo(bytes: Uint8Array, offset: number, header: FrameHeader): SideInfo {
  const reader = new BitReader(bytes, offset + 4 + (header.hasCrc ? 2 : 0));
  const mpeg1 = header.version === 1;
  const channels = header.channels;
  const mainDataBegin = reader.read(mpeg1 ? 9 : 8);
  reader.skip(mpeg1 ? (channels === 1 ? 5 : 3) : channels === 1 ? 1 : 2); // private bits
  if (mpeg1) reader.skip(4 * channels); // scfsi
  const granules = mpeg1 ? 2 : 1;
  const longBlocks: boolean[] = [];
  let mainDataBits = 0;
  for (let g = 0; g < granules; g++) {
    let long = true;
    for (let c = 0; c < channels; c++) {
      mainDataBits += reader.read(12); // part2_3_length
      reader.skip(9 + 8 + (mpeg1 ? 4 : 9)); // big_values, global_gain, scalefac_compress
      const windowSwitching = reader.read(1);
      if (windowSwitching) {
        long = false;
        reader.skip(2 + 1 + 10 + 9); // block_type, mixed_block_flag, table_select x2, subblock_gain x3
      } else {
        reader.skip(15 + 4 + 3); // table_select x3, region0_count, region1_count
      }
      reader.skip(mpeg1 ? 3 : 2); // preflag (MPEG-1 only), scalefac_scale, count1table_select
    }
    longBlocks.push(long);
  }
  return { mainDataBegin, longBlocks, mainDataBytes: Math.ceil(mainDataBits / 8) };
}
