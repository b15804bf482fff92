/* The style and script embedded in --export flamegraph's SVG. */
#ifndef CT_FLAMEGRAPH_SCRIPT_H
#define CT_FLAMEGRAPH_SCRIPT_H

extern const char ct_flamegraph_style[];
extern const char ct_flamegraph_script[];

#endif /* CT_FLAMEGRAPH_SCRIPT_H */
