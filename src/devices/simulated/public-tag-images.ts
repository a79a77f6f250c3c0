/**
 * Library tag images written by other hands than the station's — public tools' tests and outputs —
 * each with the reading its source gives, for the model reader (feig-reader-model.ts): laid on it,
 * they are read through the station's driver and decoders, so an expected reading never comes from
 * the same hand as the decoder that must meet it. Where the station reads more than the source
 * says, `note` says why.
 *
 * Sources:
 * - libdanrfid: GallusMax/libdanrfid, master (DDMDataTest.java, DDMTagTest.java) and its DM11
 *   branch (DM11DataTest.java: testBarcode, testTwinUserdata), whose tests name each image's barcode;
 * - ISO28560 (TH Wildau): BibliothekTHWildau/ISO28560 at af511eb, its ISO28560_3 writer run on the
 *   inputs named (the first its README's own example); the image is what `getISO28560(size)` returns;
 * - Biblio-RFID: dpavlin/Biblio-RFID, t/05-RFID501.t, the 3M tags of its round trip;
 * - images the project's own test encoders wrote (test/support/library-tags.ts), with the reading
 *   of the outside reader named — TH Wildau's ISO28560_3 reader or libdanrfid's DM11Data — run on
 *   them once: the outside hand is on the reading side.
 */

export interface PublicReading {
  readonly model: 'iso28560-3' | 'iso28560-2' | '3m-rfid501' | 'bibliotheca-dm11';
  readonly itemId: string;
  readonly set: { readonly part: number; readonly of: number } | null;
  readonly owner: string | null;
  readonly mediaFormat: number | null;
}

export interface PublicTagImage {
  readonly name: string;
  /** Where the image and its reading come from. */
  readonly source: string;
  /** The image as its source gives it (user memory from block 0). */
  readonly hex: string;
  /** The tag's memory in blocks of 4 bytes (the image, then zeros). */
  readonly blocks: number;
  /** What the source says the tag holds; a problem where the source's data is no readable item. */
  readonly reading: PublicReading | { readonly problem: 'blank' | 'unknown' | 'damaged' };
  readonly note?: string;
}

const DM11_TAIL = 'A484FF4F42504401500400000000F555';
const dm11 = (name: string, head: string, itemId: string, note?: string): PublicTagImage => ({
  name,
  source: 'libdanrfid DM11 branch, DM11DataTest.java',
  hex: head + DM11_TAIL,
  blocks: 28,
  reading: { model: 'bibliotheca-dm11', itemId, set: null, owner: null, mediaFormat: null },
  ...(note === undefined ? {} : { note }),
});
const FIELD_NOTE = (first8: string): string =>
  `libdanrfid's Barcode() reads the first eight characters (${first8}); its check covers bytes 1–11, which hold three more (docs/decisions/0142)`;

export const PUBLIC_TAG_IMAGES: readonly PublicTagImage[] = [
  {
    name: 'Danish data model, barcode 11223344, DE-705',
    source: 'libdanrfid master, DDMDataTest.java',
    hex: '11010131313232333334340000000000000000513e4445373035000000000000',
    blocks: 28,
    reading: { model: 'iso28560-3', itemId: '11223344', set: null, owner: 'DE-705', mediaFormat: null },
  },
  {
    name: 'Danish data model, made ready without an item (LibTag())',
    source: 'libdanrfid master, DDMTagTest.java (UserEmptyHex)',
    hex: '11010100000000000000000000000000000000ca9f4445373035000000000000',
    blocks: 28,
    reading: { problem: 'blank' },
  },
  {
    name: "ISO 28560-3, 34-byte block with library and acquisition blocks (the tool's README example)",
    source: 'ISO28560 (TH Wildau): README example, getISO28560(80)',
    hex: '110101313030303030303133360000000000003615444B37313835303000000000000C010013020044452D31323322020071426F67766F676E656E00313233343536373839300000613738393635366300',
    blocks: 28,
    reading: { model: 'iso28560-3', itemId: '1000000136', set: null, owner: 'DK-718500', mediaFormat: 2 },
    note: 'the library extension block\'s "DE-123" is an alternative owner institution: the basic block names one',
  },
  {
    name: 'ISO 28560-3, owner institution of 12 characters (DE-MUS-815718), careful handling, a title block',
    source: 'ISO28560 (TH Wildau): PII 31234000000058, ISIL DE-MUS-815718, media format 5, title "Atlas", getISO28560(112)',
    hex: '11010133313233343030303030303035380000BE8E44454D55532D3831353731380005010001050904004641746C617300',
    blocks: 28,
    reading: { model: 'iso28560-3', itemId: '31234000000058', set: null, owner: 'DE-MUS-815718', mediaFormat: 5 },
  },
  {
    name: 'ISO 28560-3, item identifier of 20 characters in the library extension block (byte 3 = 01), small item',
    source: 'ISO28560 (TH Wildau): PII "\\u0001", ISIL GB-UkOxU, library block item 30000001234567890123, media format 6, getISO28560(112)',
    hex: '1101010100000000000000000000000000000073824742556B4F78550000000000001901001C06333030303030303132333435363738393031323300',
    blocks: 28,
    reading: { model: 'iso28560-3', itemId: '30000001234567890123', set: null, owner: 'GB-UkOxU', mediaFormat: 6 },
  },
  {
    name: 'ISO 28560-3, truncated basic block of a 32-byte tag, part 2 of 3',
    source:
      'ISO28560 (TH Wildau): truncated, PII 1000000136, ISIL DK-718500, 3 parts, part 2, getISO28560(32) without the end block it appends (33 bytes for a tag of 32)',
    hex: '110302313030303030303133360000000000006402444B373138353030000000',
    blocks: 8,
    reading: { model: 'iso28560-3', itemId: '1000000136', set: { part: 2, of: 3 }, owner: 'DK-718500', mediaFormat: null },
  },
  dm11('DM11, test series 12345678', '0B41244D54655D18000000000000BB4C', '12345678'),
  dm11('DM11, test series 10000000', '0B410441100441100000000000000ACD', '10000000'),
  dm11('DM11, test series 12345670', '0B41244D54655D10000000000000E148', '12345670'),
  dm11('DM11, test series 12345001', '0B41244D54054111000000000000DAE9', '12345001'),
  dm11('DM11, test series 11111111', '0B41144551144511000000000000EFD6', '11111111'),
  dm11('DM11, test series 22222222', '0B812449922449120000000000001230', '22222222'),
  dm11('DM11, test series 33333333', '0BC1344DD3344D13000000000000448B', '33333333'),
  dm11('DM11, test series 44444444', '0B014551144551140000000000007CCB', '44444444'),
  dm11('DM11 from the field (1)', '0B41155DD9945113944100000000FD32', '51793943090', FIELD_NOTE('51793943')),
  dm11('DM11 from the field (2)', '0B41054D107655189441000000004B9F', '50308758090', FIELD_NOTE('50308758')),
  {
    name: 'ISO 28560-3 by the test encoder, owner DE-MUS-815718, careful handling',
    source:
      "test/support/library-tags.ts fullBasicBlock + libraryBlockData; read by ISO28560 (TH Wildau)'s reader: pii=31234000000123 isil=DEMUS-815718 crcError=false, library block media=5",
    hex: '11010133313233343030303030303132330000E9F544454D55532D38313537313800050100010500',
    blocks: 28,
    reading: { model: 'iso28560-3', itemId: '31234000000123', set: null, owner: 'DE-MUS-815718', mediaFormat: 5 },
    note: 'TH Wildau shows the ISIL as stored, without the hyphen after the country code',
  },
  {
    name: 'ISO 28560-3 by the test encoder, 23-character identifier in the library block, part 2 of 2, a title block',
    source:
      "test/support/library-tags.ts; read by ISO28560 (TH Wildau)'s reader: crcError=false, isil=GBUkOxU, library block media=6 item=ABC-0000000000123456789, title block",
    hex: '2102020100000000000000000000000000000066464742556B4F78550000000000001C010047064142432D303030303030303030303132333435363738390904004D5469746C6500',
    blocks: 28,
    reading: { model: 'iso28560-3', itemId: 'ABC-0000000000123456789', set: { part: 2, of: 2 }, owner: 'GB-UkOxU', mediaFormat: 6 },
    note: "TH Wildau's reader takes byte 1 for the part and byte 2 for the count (its writer does the opposite); the set here is the writer's",
  },
  {
    name: 'DM11 by the test encoder, 87654321',
    source: 'test/support/library-tags.ts dm11Image; read by libdanrfid DM11Data (DM11 branch): Barcode()=87654321, isvalid()=true',
    hex: '0B01765915354911000000000000791BA484FF4F42504401500400000000F555',
    blocks: 28,
    reading: { model: 'bibliotheca-dm11', itemId: '87654321', set: null, owner: null, mediaFormat: null },
  },
  {
    name: 'DM11 with hex digits written by hand into the nibbles, the check of another image',
    source: 'libdanrfid DM11 branch, DM11DataTest.java (testBarcode: "1f0f0f0f")',
    hex: `0B41f4411ff4411f0000000000000ACD${DM11_TAIL}`,
    blocks: 28,
    reading: { problem: 'damaged' },
    note: "libdanrfid's nibble decoder reads 1f0f0f0f; the image's check is the 10000000 image's and does not hold",
  },
  {
    name: '3M RFID 501, 200901010123',
    source: 'Biblio-RFID, t/05-RFID501.t (the tag) and lib/Biblio/RFID/RFID501.pm (its fields)',
    hex: '04110000' + '323030393031303130313233' + '00000000' + 'FFFFFFFF' + '7FFFFFFF' + '00000000',
    blocks: 8,
    reading: { model: '3m-rfid501', itemId: '200901010123', set: null, owner: null, mediaFormat: null },
  },
  {
    name: '3M RFID 501, 1302003767, item type 1',
    source: 'Biblio-RFID, t/05-RFID501.t (the tag) and lib/Biblio/RFID/RFID501.pm (its fields)',
    hex: '04110001' + '31333032303033373637' + '0000' + '00000000'.repeat(4),
    blocks: 8,
    reading: { model: '3m-rfid501', itemId: '1302003767', set: null, owner: null, mediaFormat: null },
  },
];
