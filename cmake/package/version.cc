// The one source file of libtact.so of its own: everything else comes in
// from the layers' archives (cmake/TactPackage.cmake).
extern "C" const char* tact_version() { return TACT_VERSION; }
