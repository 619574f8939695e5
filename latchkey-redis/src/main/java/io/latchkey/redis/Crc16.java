package io.latchkey.redis;

/** CRC16-CCITT (XMODEM), the checksum Redis Cluster maps keys to slots with. */
final class Crc16 {

    private static final int[] TABLE = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int crc = i << 8;
            for (int j = 0; j < 8; j++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            TABLE[i] = crc & 0xFFFF;
        }
    }

    private Crc16() {
    }

    static int of(byte[] bytes) {
        int crc = 0;
        for (byte b : bytes) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ b) & 0xFF]) & 0xFFFF;
        }
        return crc;
    }
}
