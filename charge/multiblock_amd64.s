//go:build amd64 && !purego

#include "textflag.h"

// SPLAT defines a 32-byte constant holding one byte value in every byte.
#define SPLAT(name, word) \
	DATA name<>+0(SB)/8, $word \
	DATA name<>+8(SB)/8, $word \
	DATA name<>+16(SB)/8, $word \
	DATA name<>+24(SB)/8, $word \
	GLOBL name<>(SB), RODATA|NOPTR, $32

SPLAT(mbC0Max, 0x1f1f1f1f1f1f1f1f)
SPLAT(mbQuote, 0x2222222222222222)
SPLAT(mbBackslash, 0x5c5c5c5c5c5c5c5c)
SPLAT(mbNibble, 0x0f0f0f0f0f0f0f0f)
SPLAT(mbSeven, 0x0707070707070707)
SPLAT(mbThird, 0x6060606060606060)  // 0xe0-0x80: a byte two after a three- or four-byte lead
SPLAT(mbFourth, 0x7070707070707070) // 0xf0-0x80: a byte three after a four-byte lead
SPLAT(mbHigh, 0x8080808080808080)
SPLAT(mbLastCont, 0xbfbfbfbfbfbfbfbf) // the last continuation byte, -65 signed
SPLAT(mbNibC, 0x0c0c0c0c0c0c0c0c)
SPLAT(mbNibD, 0x0d0d0d0d0d0d0d0d)
SPLAT(mbNibE, 0x0e0e0e0e0e0e0e0e)
SPLAT(mbNibF, 0x0f0f0f0f0f0f0f0f)
SPLAT(mbThree, 0x0303030303030303)
SPLAT(mbFour, 0x0404040404040404)
SPLAT(mbE0, 0xe0e0e0e0e0e0e0e0)
SPLAT(mbE3, 0xe3e3e3e3e3e3e3e3)

// mbBit: 1<<k at k for k < 8, the flag byte's bit for the next byte's bits 5..3.
DATA mbBit<>+0(SB)/8, $0x8040201008040201
DATA mbBit<>+8(SB)/8, $0
DATA mbBit<>+16(SB)/8, $0x8040201008040201
DATA mbBit<>+24(SB)/8, $0
GLOBL mbBit<>(SB), RODATA|NOPTR, $32

// MB_FRONT loads a block (SI: b, DI: tab), refuses it (to the function's
// refuse label) at a stop byte, with no byte past ASCII, or at invalid UTF-8,
// and leaves in Y8 each lead's flag from lead2Lo, lead2Hi and lead3 (by its
// nibbles; a four-byte lead's byte is all ones) masked to the bit the next
// byte's bits 5..3 pick, with mbBit in Y11 and the byte after each in Y13.
//
// Stop bytes: <= 0x1f unsigned, " or \. UTF-8: the three lookups of each
// (previous, this) pair share a bit exactly where the pair is bad, except
// that a continuation after a continuation (twoConts) is bad only where no
// lead two or three back asks for it.
#define MB_FRONT \
	MOVQ b+0(FP), SI \
	MOVQ tab+8(FP), DI \
	VMOVDQU 3(SI), Y0 \
	VMOVDQU 2(SI), Y1 \
	VPMINUB  mbC0Max<>(SB), Y0, Y2 \
	VPCMPEQB Y2, Y0, Y2 \
	VPCMPEQB mbQuote<>(SB), Y0, Y3 \
	VPOR     Y3, Y2, Y2 \
	VPCMPEQB mbBackslash<>(SB), Y0, Y3 \
	VPOR     Y3, Y2, Y2 \
	VPTEST   Y2, Y2 \
	JNZ      refuse \
	VPMOVMSKB Y0, AX \
	TESTL    AX, AX \
	JZ       refuse \
	VPSRLW  $4, Y1, Y3 \
	VPAND   mbNibble<>(SB), Y3, Y3 \
	VBROADCASTI128 0(DI), Y4 \
	VPSHUFB Y3, Y4, Y4 \
	VPAND   mbNibble<>(SB), Y1, Y3 \
	VBROADCASTI128 16(DI), Y5 \
	VPSHUFB Y3, Y5, Y5 \
	VPAND   Y5, Y4, Y4 \
	VPSRLW  $4, Y0, Y6 \
	VPAND   mbNibble<>(SB), Y6, Y6 \
	VBROADCASTI128 32(DI), Y5 \
	VPSHUFB Y6, Y5, Y5 \
	VPAND   Y5, Y4, Y4 \
	VMOVDQU 1(SI), Y2 \
	VPSUBUSB mbThird<>(SB), Y2, Y2 \
	VMOVDQU 0(SI), Y3 \
	VPSUBUSB mbFourth<>(SB), Y3, Y3 \
	VPOR    Y3, Y2, Y2 \
	VPAND   mbHigh<>(SB), Y2, Y2 \
	VPXOR   Y4, Y2, Y2 \
	VPTEST  Y2, Y2 \
	JNZ     refuse \
	VPAND   mbNibble<>(SB), Y0, Y7 \
	VBROADCASTI128 48(DI), Y8 \
	VPSHUFB Y7, Y8, Y8 \
	VPCMPEQB mbNibC<>(SB), Y6, Y9 \
	VPAND   Y9, Y8, Y8 \
	VBROADCASTI128 64(DI), Y10 \
	VPSHUFB Y7, Y10, Y10 \
	VPCMPEQB mbNibD<>(SB), Y6, Y9 \
	VPAND   Y9, Y10, Y10 \
	VPOR    Y10, Y8, Y8 \
	VBROADCASTI128 80(DI), Y10 \
	VPSHUFB Y7, Y10, Y10 \
	VPCMPEQB mbNibE<>(SB), Y6, Y9 \
	VPAND   Y9, Y10, Y10 \
	VPOR    Y10, Y8, Y8 \
	VPCMPEQB mbNibF<>(SB), Y6, Y9 \
	VPOR    Y9, Y8, Y8 \
	VMOVDQU 4(SI), Y13 \
	VPSRLW  $3, Y13, Y10 \
	VPAND   mbSeven<>(SB), Y10, Y10 \
	VMOVDQU mbBit<>(SB), Y11 \
	VPSHUFB Y10, Y11, Y10 \
	VPAND   Y10, Y8, Y8

// MB_FINE flags leads 0xe0 and 0xe3 by groups of 64 code points instead:
// their coarse flags are cleared, and fine's byte by the next byte's bits
// 5..2, masked to the bit its bits 1..0 pick (four higher for 0xe0), is
// taken in their place.
#define MB_FINE \
	VPCMPEQB mbE0<>(SB), Y0, Y14 \
	VPCMPEQB mbE3<>(SB), Y0, Y15 \
	VPOR    Y15, Y14, Y15 \
	VPAND   Y15, Y8, Y12 \
	VPXOR   Y12, Y8, Y8 \
	VPSRLW  $2, Y13, Y12 \
	VPAND   mbNibble<>(SB), Y12, Y12 \
	VBROADCASTI128 96(DI), Y9 \
	VPSHUFB Y12, Y9, Y9 \
	VPAND   mbThree<>(SB), Y13, Y12 \
	VPAND   mbFour<>(SB), Y14, Y10 \
	VPOR    Y10, Y12, Y12 \
	VPSHUFB Y12, Y11, Y12 \
	VPAND   Y12, Y9, Y9 \
	VPAND   Y15, Y9, Y9 \
	VPOR    Y9, Y8, Y8

// MB_BACK turns Y8 into the flags mask, finds the leads (every byte but a
// continuation, 0x80..0xbf, below -64 signed) and counts the odd bytes, and
// returns them with ok.
#define MB_BACK \
	VPXOR   Y12, Y12, Y12 \
	VPCMPEQB Y12, Y8, Y8 \
	VPMOVMSKB Y8, BX \
	NOTL    BX \
	VPCMPGTB mbLastCont<>(SB), Y0, Y9 \
	VPMOVMSKB Y9, CX \
	VPBROADCASTB odd0+16(FP), Y10 \
	VPCMPEQB Y10, Y0, Y10 \
	VPMOVMSKB Y10, DX \
	POPCNTL DX, DX \
	VPBROADCASTB odd1+17(FP), Y11 \
	VPCMPEQB Y11, Y0, Y11 \
	VPMOVMSKB Y11, R8 \
	POPCNTL R8, R8 \
	VZEROUPPER \
	MOVL CX, leads+24(FP) \
	MOVL BX, flags+28(FP) \
	MOVL DX, n0+32(FP) \
	MOVL R8, n1+36(FP) \
	MOVB $1, ok+40(FP) \
	RET

// MB_FRONT_PREFIX is MB_FRONT for a block that may hold a stop byte: it
// refuses the block with no byte past ASCII, or at invalid UTF-8 at or
// before its first stop byte (an error at the stop itself is a sequence it
// cuts short; past it nothing counts, as those bytes are not charged), and
// leaves the stop bytes' mask in R9 and the mask of the bytes before the
// first in R11 (all ones without one), with Y8, Y11 and Y13 as MB_FRONT.
#define MB_FRONT_PREFIX \
	MOVQ b+0(FP), SI \
	MOVQ tab+8(FP), DI \
	VMOVDQU 3(SI), Y0 \
	VMOVDQU 2(SI), Y1 \
	VPMINUB  mbC0Max<>(SB), Y0, Y2 \
	VPCMPEQB Y2, Y0, Y2 \
	VPCMPEQB mbQuote<>(SB), Y0, Y3 \
	VPOR     Y3, Y2, Y2 \
	VPCMPEQB mbBackslash<>(SB), Y0, Y3 \
	VPOR     Y3, Y2, Y2 \
	VPMOVMSKB Y2, R9 \
	VPMOVMSKB Y0, AX \
	TESTL    AX, AX \
	JZ       refuse \
	VPSRLW  $4, Y1, Y3 \
	VPAND   mbNibble<>(SB), Y3, Y3 \
	VBROADCASTI128 0(DI), Y4 \
	VPSHUFB Y3, Y4, Y4 \
	VPAND   mbNibble<>(SB), Y1, Y3 \
	VBROADCASTI128 16(DI), Y5 \
	VPSHUFB Y3, Y5, Y5 \
	VPAND   Y5, Y4, Y4 \
	VPSRLW  $4, Y0, Y6 \
	VPAND   mbNibble<>(SB), Y6, Y6 \
	VBROADCASTI128 32(DI), Y5 \
	VPSHUFB Y6, Y5, Y5 \
	VPAND   Y5, Y4, Y4 \
	VMOVDQU 1(SI), Y2 \
	VPSUBUSB mbThird<>(SB), Y2, Y2 \
	VMOVDQU 0(SI), Y3 \
	VPSUBUSB mbFourth<>(SB), Y3, Y3 \
	VPOR    Y3, Y2, Y2 \
	VPAND   mbHigh<>(SB), Y2, Y2 \
	VPXOR   Y4, Y2, Y2 \
	VPXOR   Y12, Y12, Y12 \
	VPCMPEQB Y12, Y2, Y2 \
	VPMOVMSKB Y2, R10 \
	NOTL    R10 \
	LEAL    -1(R9), R11 \
	XORL    R9, R11 \
	TESTL   R11, R10 \
	JNZ     refuse \
	NOTL    R11 \
	ORL     R9, R11 \
	NOTL    R11 \
	VPAND   mbNibble<>(SB), Y0, Y7 \
	VBROADCASTI128 48(DI), Y8 \
	VPSHUFB Y7, Y8, Y8 \
	VPCMPEQB mbNibC<>(SB), Y6, Y9 \
	VPAND   Y9, Y8, Y8 \
	VBROADCASTI128 64(DI), Y10 \
	VPSHUFB Y7, Y10, Y10 \
	VPCMPEQB mbNibD<>(SB), Y6, Y9 \
	VPAND   Y9, Y10, Y10 \
	VPOR    Y10, Y8, Y8 \
	VBROADCASTI128 80(DI), Y10 \
	VPSHUFB Y7, Y10, Y10 \
	VPCMPEQB mbNibE<>(SB), Y6, Y9 \
	VPAND   Y9, Y10, Y10 \
	VPOR    Y10, Y8, Y8 \
	VPCMPEQB mbNibF<>(SB), Y6, Y9 \
	VPOR    Y9, Y8, Y8 \
	VMOVDQU 4(SI), Y13 \
	VPSRLW  $3, Y13, Y10 \
	VPAND   mbSeven<>(SB), Y10, Y10 \
	VMOVDQU mbBit<>(SB), Y11 \
	VPSHUFB Y10, Y11, Y10 \
	VPAND   Y10, Y8, Y8

// MB_BACK_PREFIX is MB_BACK with the flags and odd bytes taken before the
// first stop byte only (R11), and the stop bytes returned.
#define MB_BACK_PREFIX \
	VPXOR   Y12, Y12, Y12 \
	VPCMPEQB Y12, Y8, Y8 \
	VPMOVMSKB Y8, BX \
	NOTL    BX \
	ANDL    R11, BX \
	VPCMPGTB mbLastCont<>(SB), Y0, Y9 \
	VPMOVMSKB Y9, CX \
	VPBROADCASTB odd0+16(FP), Y10 \
	VPCMPEQB Y10, Y0, Y10 \
	VPMOVMSKB Y10, DX \
	ANDL    R11, DX \
	POPCNTL DX, DX \
	VPBROADCASTB odd1+17(FP), Y11 \
	VPCMPEQB Y11, Y0, Y11 \
	VPMOVMSKB Y11, R8 \
	ANDL    R11, R8 \
	POPCNTL R8, R8 \
	VZEROUPPER \
	MOVL CX, leads+24(FP) \
	MOVL BX, flags+28(FP) \
	MOVL DX, n0+32(FP) \
	MOVL R8, n1+36(FP) \
	MOVL R9, stops+40(FP) \
	MOVB $1, ok+44(FP) \
	RET

// func multiBlockAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1 uint32, ok bool)
//
// tab: byte1High, byte1Low, byte2High, lead2Lo, lead2Hi, lead3, fine, 16
// bytes each, at 0, 16, ... 96. Each is broadcast to both 128-bit lanes, as
// VPSHUFB looks up within a lane. Only VEX-encoded instructions (see
// plainrun_amd64.s).
TEXT ·multiBlockAVX2(SB), NOSPLIT, $0-41
	MB_FRONT
	MB_BACK

refuse:
	VZEROUPPER
	MOVL $0, leads+24(FP)
	MOVL $0, flags+28(FP)
	MOVL $0, n0+32(FP)
	MOVL $0, n1+36(FP)
	MOVB $0, ok+40(FP)
	RET

// func multiBlockFineAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1 uint32, ok bool)
//
// multiBlockAVX2 with leads 0xe0 and 0xe3 flagged by fine (MB_FINE): a
// dozen more instructions a block, spent only on runs that begin with such
// a lead.
TEXT ·multiBlockFineAVX2(SB), NOSPLIT, $0-41
	MB_FRONT
	MB_FINE
	MB_BACK

refuse:
	VZEROUPPER
	MOVL $0, leads+24(FP)
	MOVL $0, flags+28(FP)
	MOVL $0, n0+32(FP)
	MOVL $0, n1+36(FP)
	MOVB $0, ok+40(FP)
	RET

// Dword constants for astralBlockAVX2.
#define DSPLAT(name, dword) \
	DATA name<>+0(SB)/4, $dword \
	DATA name<>+4(SB)/4, $dword \
	DATA name<>+8(SB)/4, $dword \
	DATA name<>+12(SB)/4, $dword \
	DATA name<>+16(SB)/4, $dword \
	DATA name<>+20(SB)/4, $dword \
	DATA name<>+24(SB)/4, $dword \
	DATA name<>+28(SB)/4, $dword \
	GLOBL name<>(SB), RODATA|NOPTR, $32

DSPLAT(asForm, 0x808080f0)   // a four-byte sequence, read little-endian
DSPLAT(asFormMask, 0xc0c0c0f8)
DSPLAT(asLow3, 0x00000007)
DSPLAT(asByte1, 0x00003f00)
DSPLAT(asByte2, 0x003f0000)
DSPLAT(asLow6, 0x0000003f)
DSPLAT(asPlane1, 0x00010000)

// func astralBlockAVX2(b *[32]byte, bits *byte) (printable uint32, ok bool)
//
// b holds eight four-byte sequences or ok is false. Each is decoded in its
// own dword, held to U+10000..U+10FFFF, and its bit in the astral table
// (bit r&7 of byte (r-0x10000)>>3) gathered; printable counts the set ones.
// The gather reads four bytes at each byte index, so the table has three
// bytes after its last.
TEXT ·astralBlockAVX2(SB), NOSPLIT, $0-21
	MOVQ b+0(FP), SI
	MOVQ bits+8(FP), DI
	VMOVDQU (SI), Y0
	VPAND    asFormMask<>(SB), Y0, Y1
	VPCMPEQD asForm<>(SB), Y1, Y1
	VPMOVMSKB Y1, AX
	CMPL AX, $0xffffffff
	JNE  astralNo

	VPAND  asLow3<>(SB), Y0, Y1
	VPSLLD $18, Y1, Y1
	VPAND  asByte1<>(SB), Y0, Y2
	VPSLLD $4, Y2, Y2
	VPOR   Y2, Y1, Y1
	VPAND  asByte2<>(SB), Y0, Y2
	VPSRLD $10, Y2, Y2
	VPOR   Y2, Y1, Y1
	VPSRLD $24, Y0, Y2
	VPAND  asLow6<>(SB), Y2, Y2
	VPOR   Y2, Y1, Y1 // the code point
	VPSUBD asPlane1<>(SB), Y1, Y1
	VPSRLD $20, Y1, Y2 // nonzero: overlong, or past U+10FFFF
	VPTEST Y2, Y2
	JNZ    astralNo

	VPSRLD   $3, Y1, Y2
	VPCMPEQD Y3, Y3, Y3
	VPXOR    Y4, Y4, Y4
	VPGATHERDD Y3, (DI)(Y2*1), Y4
	VPAND   asLow3<>(SB), Y1, Y5
	VPSRLVD Y5, Y4, Y4
	VPSLLD  $31, Y4, Y4
	VMOVMSKPS Y4, AX
	POPCNTL AX, AX
	VZEROUPPER
	MOVL AX, printable+16(FP)
	MOVB $1, ok+20(FP)
	RET

astralNo:
	VZEROUPPER
	MOVL $0, printable+16(FP)
	MOVB $0, ok+20(FP)
	RET

// func multiBlockPrefixAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1, stops uint32, ok bool)
//
// multiBlockAVX2 for a block that may hold a stop byte, read up to the
// first (MB_FRONT_PREFIX, MB_BACK_PREFIX): a dozen more instructions than
// a block without, spent on a run's first block and its last.
TEXT ·multiBlockPrefixAVX2(SB), NOSPLIT, $0-45
	MB_FRONT_PREFIX
	MB_BACK_PREFIX

refuse:
	VZEROUPPER
	MOVL $0, leads+24(FP)
	MOVL $0, flags+28(FP)
	MOVL $0, n0+32(FP)
	MOVL $0, n1+36(FP)
	MOVL $0, stops+40(FP)
	MOVB $0, ok+44(FP)
	RET

// func multiBlockFinePrefixAVX2(b *[36]byte, tab *blockTables, odd0, odd1 byte) (leads, flags, n0, n1, stops uint32, ok bool)
//
// multiBlockPrefixAVX2 with the fine flags (MB_FINE).
TEXT ·multiBlockFinePrefixAVX2(SB), NOSPLIT, $0-45
	MB_FRONT_PREFIX
	MB_FINE
	MB_BACK_PREFIX

refuse:
	VZEROUPPER
	MOVL $0, leads+24(FP)
	MOVL $0, flags+28(FP)
	MOVL $0, n0+32(FP)
	MOVL $0, n1+36(FP)
	MOVL $0, stops+40(FP)
	MOVB $0, ok+44(FP)
	RET
