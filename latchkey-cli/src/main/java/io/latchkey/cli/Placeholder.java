package io.latchkey.cli; final class Placeholder {}
