# Turns a file into a C array definition so the library carries its data
# and needs no path at run time. Invoked as
#   cmake -DINPUT=<file> -DOUTPUT=<inc> -DSYMBOL=<name> -P EmbedFile.cmake
# Bytes (not a raw string) so the text may hold any characters and any
# length that a compiler's string-literal limit would reject.
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)"
       "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp"
     "// Generated from ${INPUT} by EmbedFile.cmake. Do not edit.\n"
     "static const char ${SYMBOL}[] = {\n${bytes}0x00};\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
