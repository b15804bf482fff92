/*
 * A small program to trace: counts word frequencies in generated text with
 * a hash table, sorts them with a recursive quicksort and prints the top
 * words.  Build and trace it with `make demo`, or by hand:
 *
 *   gcc -g -O1 -finstrument-functions -Iinclude -o wordfreq examples/wordfreq.c
 *   LD_PRELOAD=build/libcalltrace.so CALLTRACE_OUTPUT=wordfreq.raw ./wordfreq
 *   build/calltrace-report wordfreq.raw
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltrace.h"

#define SLOTS 1024

struct entry {
    char word[16];
    int count;
};

static struct entry table[SLOTS];

static unsigned next_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 16) & 0x7fff;
}

static void make_word(unsigned *state, char *out)
{
    static const char *syllables[] = {"ka", "lo", "mi", "ne", "ru", "ta"};
    int n = 1 + (int)(next_random(state) % 3);
    out[0] = 0;
    for (int i = 0; i < n; i++)
        strcat(out, syllables[next_random(state) % 6]);
}

static unsigned hash(const char *s)
{
    unsigned h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

static void count_word(const char *w)
{
    unsigned i = hash(w) % SLOTS;
    while (table[i].count && strcmp(table[i].word, w) != 0)
        i = (i + 1) % SLOTS;
    if (!table[i].count)
        strcpy(table[i].word, w);
    table[i].count++;
}

static int compare(const struct entry *a, const struct entry *b)
{
    if (a->count != b->count)
        return b->count - a->count;
    return strcmp(a->word, b->word);
}

static void quicksort(struct entry *v, int lo, int hi)
{
    if (lo >= hi)
        return;
    struct entry pivot = v[(lo + hi) / 2];
    int i = lo, j = hi;
    while (i <= j) {
        while (compare(&v[i], &pivot) < 0)
            i++;
        while (compare(&v[j], &pivot) > 0)
            j--;
        if (i <= j) {
            struct entry t = v[i];
            v[i++] = v[j];
            v[j--] = t;
        }
    }
    quicksort(v, lo, j);
    quicksort(v, i, hi);
}

int main(int argc, char **argv)
{
    int words = argc > 1 ? atoi(argv[1]) : 20000;
    unsigned state = 42;
    char w[16];

    calltrace_event("counting %d words", words);
    for (int i = 0; i < words; i++) {
        make_word(&state, w);
        count_word(w);
    }
    calltrace_event("sorting");
    quicksort(table, 0, SLOTS - 1);
    for (int i = 0; i < 5 && table[i].count; i++)
        printf("%-8s %d\n", table[i].word, table[i].count);
    return 0;
}
