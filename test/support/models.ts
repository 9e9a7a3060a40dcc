// Registers every mongoose model before indexes are built, as the app's import graph does at start.
import '../../src/app';
